/**
 * The service's layers, each depending only on the ones below it (docs/architecture.md):
 *
 *   composition root   src/main.ts, src/app.module.ts,
 *                      src/entities.ts, src/openapi.ts, src/cli/
 *   features           auth/ (but its engine), account/, otp/, webauthn/, oauth/, oidc/, scim/, tenant/,
 *                      credentials/, introspection/, health/, bootstrap/, console/, extensions/ (only the
 *                      composition root imports it)
 *   sign-in engine     src/auth/engine/
 *   domain             user/, session/, keys/, mail/, sector/, settings/, api-token/, audit/, role/,
 *                      events/, webhook/
 *   infrastructure     tenancy/, database/, metrics/, throttle/, access/, outbox/
 *   foundation         config/, common/
 *
 * Within a layer folders may import each other, but never in a cycle (no-folder-cycles).
 * `npm run lint:deps` checks the rules below with the known violations of
 * .dependency-cruiser-known-violations.json ignored: a new upward import or cycle fails
 * the build, the listed ones are debt to pay off (regenerate the file with
 * `npm run lint:deps:baseline` after removing some).
 */
const ROOT = '^src/(main|app[.]module|entities|openapi)[.]ts$|^src/cli/';
const FOUNDATION = '^src/(config|common)/';
const INFRASTRUCTURE = '^src/(tenancy|database|metrics|throttle|access|outbox)/';
const DOMAIN = '^src/(user|session|keys|mail|sector|settings|api-token|audit|role|events|webhook)/';
const ENGINE = '^src/auth/engine/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'foundation-depends-on-nothing-above',
      severity: 'error',
      comment: 'config/ and common/ are the bottom layer: they import each other and libraries only.',
      from: { path: FOUNDATION },
      to: { path: '^src/', pathNot: FOUNDATION },
    },
    {
      name: 'infrastructure-depends-only-below',
      severity: 'error',
      comment: 'tenancy/, database/, metrics/, throttle/ and access/ (the access declarations and role matrix) import each other, config/ and common/ only.',
      from: { path: INFRASTRUCTURE },
      to: { path: '^src/', pathNot: `${INFRASTRUCTURE}|${FOUNDATION}` },
    },
    {
      name: 'domain-depends-only-below',
      severity: 'error',
      comment: 'The domain records every feature builds on (users, sessions, keys, mail, sectors, settings, API tokens, audit) know no feature and not the sign-in engine.',
      from: { path: DOMAIN },
      to: { path: '^src/', pathNot: `${DOMAIN}|${INFRASTRUCTURE}|${FOUNDATION}` },
    },
    {
      name: 'engine-depends-only-below',
      severity: 'error',
      comment: 'The sign-in engine knows no feature: factors plug in through strategies they register.',
      from: { path: ENGINE },
      to: { path: '^src/', pathNot: `${ENGINE}|${DOMAIN}|${INFRASTRUCTURE}|${FOUNDATION}` },
    },
    {
      name: 'nothing-depends-on-the-composition-root',
      severity: 'error',
      comment: 'main.ts, app.module.ts, openapi.ts and the CLI wire the modules; no module imports them (their own unit specs may).',
      from: { path: '^src/', pathNot: `${ROOT}|[.]spec[.]ts$` },
      to: { path: ROOT },
    },
    {
      name: 'only-the-composition-root-loads-extensions',
      severity: 'error',
      comment: 'src/extensions/ is the seam extension modules plug into (docs/extending.md): the composition root loads them; no module depends on it.',
      from: { path: '^src/', pathNot: `${ROOT}|^src/extensions/|[.]spec[.]ts$` },
      to: { path: '^src/extensions/' },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'Two folders that import each other are one folder in disguise: move the shared piece down a layer.',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      severity: 'error',
      comment: 'Modules that import each other load in an order that depends on who asks first.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-test-code-in-src',
      severity: 'error',
      comment: 'Test support stays under test/; the service never loads it.',
      from: { path: '^src/' },
      to: { path: '^test/' },
    },
    {
      name: 'src-does-not-import-the-console',
      severity: 'error',
      comment: 'The console is a separate browser build; the service serves its files, never imports them.',
      from: { path: '^src/' },
      to: { path: '^console/' },
    },
    {
      name: 'console-imports-types-only-from-src',
      severity: 'error',
      comment: 'The console talks to the service over HTTP; at most it shares types.',
      from: { path: '^console/' },
      to: { path: '^(src|test|bench|migrations)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    exclude: { path: ['(^|/)dist/', '^node_modules/', '^test-artifacts/', '^bench/results/'] },
    // Type-only imports count: they tie the layers together just the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.tsx', '.d.ts', '.js', '.cjs', '.mjs', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
