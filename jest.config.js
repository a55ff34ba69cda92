/** Jest: unit specs beside the code, e2e specs under test/ on a real PostgreSQL. See docs/decisions.md (toolchain). */
const swc = require('./.swcrc.jest.json');

const transform = { '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }] };

module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  // A global option (ignored inside a project): e2e specs boot apps and talk to real servers.
  testTimeout: 60000,
  projects: [
    {
      displayName: 'unit',
      rootDir: __dirname,
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
      transform,
      testEnvironment: 'node',
    },
    {
      displayName: 'e2e',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      transform,
      testEnvironment: 'node',
      slowTestThreshold: 20,
    },
  ],
};
