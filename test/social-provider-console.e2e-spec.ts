/**
 * The console's Social login screen tests a provider, in a real browser:
 * Debian's chromium through playwright-core, against the real service (serving
 * the built console from dist/console) on a real PostgreSQL. A small local
 * server plays the provider: its discovery answers 404 for the saved issuer, and
 * a whole discovery (document and key set) for another.
 *
 * A tenant's first admin signs in to /console, opens Social login, and:
 * - sees the redirect URI to register at the provider (this service's callback)
 *   with a copy button;
 * - presses Test on the saved, broken OpenID provider: the checks are listed,
 *   the discovery failed with the 404 the provider answered;
 * - types a working issuer and presses "Test before saving": every check passes,
 *   and the stored configuration is unchanged.
 * The screen is checked with axe (no serious or critical violations), light and
 * dark, and photographed to test-artifacts/screenshots/console-oauth-test*.png.
 *
 * Needs the console built first (dist/console). If chromium cannot start, the spec fails.
 */
import { mkdirSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeAll, checkAccessibleScreen, newConsolePage, requireConsoleBuild, signInToConsole, startBrowser } from './support/browser';
import { ProvisionedTenant, provisionTenant } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

jest.setTimeout(120_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');
const SECRET = 'console-oidc-secret-0123456789abcdef';

describe('console: testing a social provider, in chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let tenant: ProvisionedTenant;
  let server: Server;
  let base = '';

  const bearer = () => ({ Authorization: `Bearer ${tenant.adminToken}` });
  const stored = async () => {
    const res = await t.http().get(`/api/v1/sectors/${tenant.rootSectorID}/oauth/providers`).set(bearer());
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    // The provider: a discovery at /good (its key set too); anything else 404.
    server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const issuer = `${base}/good`;
      const routes: Record<string, unknown> = {
        '/good/.well-known/openid-configuration': {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          id_token_signing_alg_values_supported: ['RS256'],
        },
        '/good/jwks': { keys: [{ kty: 'RSA', use: 'sig', alg: 'RS256', kid: 'k1', n: 'AQAB', e: 'AQAB' }] },
      };
      res.statusCode = routes[path] ? 200 : 404;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(routes[path] ?? { error: 'not_found' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await startTestApp({ env: { ...NO_THROTTLE } });
    tenant = await provisionTenant(t);
    const saved = await t
      .http()
      .put(`/api/v1/sectors/${tenant.rootSectorID}/oauth/providers`)
      .set(bearer())
      .send({ providers: { oidc: { enabled: true, clientID: 'console-client', clientSecret: SECRET, issuerURL: `${base}/broken`, redirectURI: `${t.baseUrl}/api/v1/oauth/oidc/callback` } } });
    expect(saved.status).toBe(200);
    browser = await startBrowser();
    ({ context, page } = await newConsolePage(browser, t.baseUrl));
  });

  afterAll(async () => {
    await closeAll([context, browser], t);
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('tests the saved broken provider, then the form before saving', async () => {
    await signInToConsole(page, t.baseUrl, { username: tenant.adminEmail, password: tenant.adminPassword, sectorID: tenant.rootSectorID });
    await page.getByRole('link', { name: 'Social login' }).click();
    await page.getByRole('heading', { level: 1, name: /social login/i }).waitFor();

    const form = page.getByRole('form', { name: 'OpenID Connect provider' });
    // The redirect URI to register at the provider, with a copy button.
    await form.getByText(`${t.baseUrl}/api/v1/oauth/oidc/callback`, { exact: true }).waitFor();
    await form.getByRole('button', { name: 'Copy the OpenID Connect provider redirect URI' }).waitFor();

    // The saved configuration: discovery answers 404.
    await form.getByRole('button', { name: 'Test OpenID Connect provider' }).click();
    const result = form.getByRole('status').filter({ hasText: 'a check failed' });
    await result.waitFor();
    const checks = result.getByRole('list', { name: 'OpenID Connect provider checks' }).getByRole('listitem');
    const lines = async (items: typeof checks) => (await items.allInnerTexts()).map((line) => line.replace(/\s+/g, ' ').trim());
    expect(await lines(checks)).toEqual([
      'ok configuration: the configuration is complete',
      `failed discovery: ${base}/broken/.well-known/openid-configuration answered HTTP 404`,
    ]);
    // Light and dark: console-oauth-test-failed.png and console-oauth-test-failed-dark.png.
    await checkAccessibleScreen(page, 'console-oauth-test-failed', SHOTS);

    // A working issuer typed, tested before saving: every check passes, nothing is stored.
    const before = await stored();
    await form.getByLabel('OpenID Connect provider: Issuer URL').fill(`${base}/good`);
    await form.getByRole('button', { name: 'Test before saving' }).click();
    const passed = form.getByRole('status').filter({ hasText: 'every check passed' });
    await passed.waitFor();
    expect((await lines(passed.getByRole('listitem'))).map((line) => line.split(':')[0])).toEqual([
      'ok configuration',
      'ok discovery',
      'ok issuer',
      'ok endpoints',
      'ok jwks',
    ]);
    await checkAccessibleScreen(page, 'console-oauth-test-passed', SHOTS, { dark: false });
    expect(await stored()).toEqual(before);
    expect(await page.getByText(SECRET).count()).toBe(0);
  });
});
