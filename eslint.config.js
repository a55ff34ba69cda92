// ESLint 9 flat config for the service (src/, test/, bench/, migrations/, ormconfig.ts and the
// build scripts). The browser app in console/ has its own config (console/eslint.config.js).
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const globals = require('globals');

/**
 * Only a package's public entry points: its main module and the subpaths it documents.
 * Everything else in a dependency (its compiled files, internal helpers, Express's lib/)
 * may change or vanish in any release.
 */
const NON_PUBLIC_IMPORTS = {
  patterns: [
    {
      // No NestJS package documents a subpath (`@nestjs/core/helpers/…`, `@nestjs/common/constants`).
      regex: '^@nestjs/[^/]+/.',
      message: 'Import a NestJS package from its main entry point only; its other files are internals.',
    },
    {
      regex: '^(typeorm|express|fastify|router|body-parser|pg|pg-pool|supertest|passport|helmet|class-validator|class-transformer|prom-client)/.',
      message: 'Import the package from its main entry point only; its other files are internals.',
    },
    {
      // A bare specifier reaching into a compiled, internal or source folder (`rxjs/internal/…`, `x/dist/…`).
      regex: '^(?![.]{1,2}/)(@[^/]+/)?[^/]+/(.+/)?(dist|build|lib|esm|cjs|src|internal|internals)(/|$)',
      message: "A dependency's compiled, internal or source files are not its public API.",
    },
    {
      regex: '(^|/)node_modules/',
      message: 'Import a dependency by its package name, from its public entry points.',
    },
  ],
};

/** Assignments to a prototype (or to a member of one), and the calls that do the same. */
const PROTOTYPE_WRITES = [
  {
    selector: "AssignmentExpression > MemberExpression.left[property.name=/^(prototype|__proto__)$/]",
    message: 'Do not assign a prototype: use composition or the library’s public options.',
  },
  {
    selector: "AssignmentExpression > MemberExpression.left > MemberExpression.object[property.name='prototype']",
    message: 'Do not assign to a prototype’s members: use composition or the library’s public hooks.',
  },
  {
    selector: "AssignmentExpression > MemberExpression.left > TSAsExpression.object > MemberExpression.expression[property.name='prototype']",
    message: 'Do not assign to a prototype’s members: use composition or the library’s public hooks.',
  },
  {
    // Holding a prototype in a variable is how its members get reassigned out of sight of the two rules above.
    selector: "VariableDeclarator > MemberExpression.init[property.name='prototype'], VariableDeclarator > TSAsExpression.init > MemberExpression.expression[property.name='prototype']",
    message: 'Do not hold a prototype in a variable to change it: use composition or the library’s public hooks.',
  },
  {
    selector:
      "CallExpression[callee.object.name=/^(Object|Reflect)$/][callee.property.name=/^(setPrototypeOf|defineProperty|defineProperties|assign)$/][arguments.0.property.name='prototype']",
    message: 'Do not change a prototype: use composition or the library’s public hooks.',
  },
];

module.exports = tseslint.config(
  { ignores: ['console/**', '**/dist/**', 'node_modules/**', 'test-artifacts/**', 'coverage/**', 'bench/results/**'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { globals: globals.node, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      'no-console': 'error',
      'no-restricted-imports': ['error', NON_PUBLIC_IMPORTS],
      'no-restricted-syntax': ['error', ...PROTOTYPE_WRITES],
    },
  },
  {
    // e2e specs read untyped JSON bodies (`res.body`) and drive untyped test libraries throughout.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // CommonJS build and tool configs.
    files: ['**/*.js', '**/*.cjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node, ecmaVersion: 2023, sourceType: 'commonjs' },
  },
);
