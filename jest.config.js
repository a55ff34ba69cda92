/** Jest: unit specs beside the code, e2e specs under test/ on a real PostgreSQL. See docs/adr/0001-toolchain.md. */
const { availableParallelism } = require('node:os');
const swc = require('./.swcrc.jest.json');

const transform = {
  '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }],
  // An ES module that @fastify/static (the docs UI on Fastify) requires: Node loads it with
  // require(esm), Jest's module loader cannot before Node 24.9, so it is compiled to CommonJS.
  '/node_modules/(.+/)?content-disposition/.+\\.js$': ['@swc/jest', { ...swc, jsc: { ...swc.jsc, parser: { syntax: 'ecmascript' } }, swcrc: false }],
};
const transformIgnorePatterns = ['^(?!.*/node_modules/(.+/)?content-disposition/).*/node_modules/'];

/**
 * The e2e specs that also run on Fastify: the adapter's own checks, every OpenAPI operation
 * (fuzz, openapi), errors and parser failures, browser HTTP (CORS, headers, docs), the SIGTERM
 * drain and TRUST_PROXY (deployment), logs and metrics, redirects and form posts (social login),
 * the request context (audit), the main flows (smoke, login, tokens and introspection, sessions), and the
 * introspection fast path and the OpenID Provider in front of the adapter.
 */
const FASTIFY_SPECS = ['adapters', 'fuzz', 'openapi', 'errors', 'browser-http', 'deployment', 'logging', 'metrics', 'social-login', 'audit', 'smoke', 'login', 'tokens', 'sessions', 'browser-sessions', 'introspection-fast-path', 'oidc-provider', 'oidc-sessions', 'scim', 'scim-users'];

/** The e2e specs, run once per HTTP adapter (docs/adr/0031-http-adapters.md). */
const e2e = {
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
  transform,
  transformIgnorePatterns,
  testEnvironment: 'node',
  slowTestThreshold: 20,
};

module.exports = {
  // The e2e specs spend much of their time waiting on PostgreSQL, the network, browsers and timers: Jest's default
  // (one worker fewer than the cores) left about half of a 2-core machine idle. One worker per core uses it; one
  // more saturated it, and specs that check a deadline under load began to miss it.
  maxWorkers: availableParallelism(),
  // Spec files run in a worker process that is replaced once it holds more than this after a file. Without it, a
  // 2-core machine (one worker) runs every file in Jest's own process, whose heap then grows with each file until it
  // runs out (what each file's modules leave behind is only freed with the process).
  workerIdleMemoryLimit: '1GB',
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
    { ...e2e, displayName: 'e2e', setupFiles: ['<rootDir>/test/support/express-adapter.ts'] },
    // On Fastify (HTTP_ADAPTER=fastify for this project's specs only): the specs that reach every
    // route and every adapter-sensitive corner, or with E2E_FASTIFY=all every spec (docs/adr/0031-http-adapters.md,
    // the whole suite twice would take `npm test` past ten minutes).
    {
      ...e2e,
      displayName: 'e2e-fastify',
      setupFiles: ['<rootDir>/test/support/fastify-adapter.ts'],
      ...(process.env.E2E_FASTIFY === 'all' ? {} : { testMatch: FASTIFY_SPECS.map((name) => `<rootDir>/test/${name}.e2e-spec.ts`) }),
    },
  ],
};
