/**
 * The console's "Apps (OpenID Connect)" screen in a real browser: Debian's chromium
 * through playwright-core, against the real service (serving the built console from
 * dist/console) on a real PostgreSQL.
 *
 * A tenant's first admin signs in to /console and opens the apps of the tenant's
 * default sector (its OpenID Provider): the empty list explains what an app is and
 * names the issuer and its discovery URL. The admin then:
 * - creates an app with a redirect URI and the client credentials grant: its client
 *   ID and secret are shown once, and the
 *   secret works at the issuer's token endpoint (client_credentials, HTTP Basic);
 * - edits its redirect URIs: a bad one shows the API's field violation beside the
 *   field, a good list is saved (and the secret still works);
 * - rotates its secret after a confirmation: the new secret is shown once, the old
 *   one is refused at once (401 invalid_client) and the new one works;
 * - deletes it after a confirmation naming it: it leaves the list, and its secret
 *   stops working.
 * Every screen is checked with axe (no serious or critical violations) and
 * photographed to test-artifacts/screenshots/console-apps-*.png.
 *
 * Needs `npm run build` first (dist/console). If chromium cannot start, the spec fails.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeAll, checkAccessibleScreen, newConsolePage, signInToConsole, startBrowser } from './support/browser';
import { ProvisionedTenant, provisionTenant } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';

jest.setTimeout(180_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');
const CONSOLE_BUILD = join(__dirname, '..', 'dist', 'console', 'index.html');
const tag = randomBytes(3).toString('hex');

/** The slug every tenant's default sector gets when it is provisioned. */
const DEFAULT_SECTOR_SLUG = 'admin';

/** axe, and a screenshot to console-apps-<name>.png. */
const checkScreen = (page: Page, name: string) => checkAccessibleScreen(page, `console-apps-${name}`, SHOTS, { dark: false });

/** The text of the hint and error a control's aria-describedby names. */
async function describedText(page: Page, describedBy: string): Promise<string> {
  return page.evaluate((ids) => ids.split(/\s+/).map((id) => (globalThis as any).document.getElementById(id)?.textContent ?? '').join(' '), describedBy);
}

describe('console: the apps of a sector’s OpenID Provider, in chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let tenant: ProvisionedTenant;

  const appName = `Reports ${tag}`;
  const firstRedirect = `https://reports-${tag}.example.com/callback`;
  const editedRedirects = [`https://reports-${tag}.example.com/auth/callback`, `https://reports-${tag}.example.com/other/callback`];
  let issuer = '';
  let issuerPath = '';
  let clientID = '';
  let firstSecret = '';
  let rotatedSecret = '';

  const auth = () => ({ Authorization: `Bearer ${tenant.adminToken}` });
  const clientURL = () => `/api/v1/sectors/${tenant.rootSectorID}/oidc/clients/${encodeURIComponent(clientID)}`;
  /** client_credentials at the issuer's token endpoint, the secret in HTTP Basic. */
  const tokenWith = (secret: string) => t.http().post(`${issuerPath}/token`).auth(clientID, secret).type('form').send({ grant_type: 'client_credentials' });
  const appsTable = () => page.getByRole('table', { name: 'Apps of this sector' });
  const appRow = () => appsTable().getByRole('row').filter({ hasText: appName });

  beforeAll(async () => {
    if (!existsSync(CONSOLE_BUILD)) throw new Error(`${CONSOLE_BUILD} is missing: run \`npm run build\` before this spec`);
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ env: { ...NO_THROTTLE } });
    tenant = await provisionTenant(t);
    browser = await startBrowser();
    ({ context, page } = await newConsolePage(browser, t.baseUrl));
  });

  afterAll(() => closeAll([context, browser], t));

  it('opens the apps of the default sector: an empty list that explains apps and names the issuer', async () => {
    await signInToConsole(page, t.baseUrl, { username: tenant.adminEmail, password: tenant.adminPassword, sectorID: tenant.rootSectorID });
    // Tokens live in the page's memory, so the screen is reached through the navigation, never a reload.
    await page.getByRole('navigation', { name: /console/i }).getByRole('link', { name: 'Apps (OpenID Connect)' }).click();
    await page.getByRole('heading', { level: 1, name: 'Apps (OpenID Connect)' }).waitFor();
    expect(page.url()).toContain(`/console/sectors/${tenant.rootSectorID}/clients`);

    await page.getByText('No apps yet.').waitFor();
    // The list names the sector's issuer, and its discovery URL, before any app exists.
    const provider = page.getByRole('region', { name: 'OpenID Provider', exact: true });
    await provider.getByTestId('issuer').waitFor();
    await expect(provider.getByTestId('issuer').innerText()).resolves.toBe(`${t.config.publicUrl}/oidc/${tenant.slug}/${DEFAULT_SECTOR_SLUG}`);
    await checkScreen(page, 'empty');
  });

  it('creates an app with a redirect URI and client credentials: the client ID and secret are shown once, and the secret works', async () => {
    await page.getByRole('button', { name: 'New app' }).click();
    const form = page.getByRole('form', { name: 'New app' });
    await form.getByLabel(/^App name/).fill(appName);
    await form.getByLabel('Redirect URIs', { exact: true }).fill(firstRedirect);
    // The defaults (authorization code, refresh token) stay; client credentials is added.
    await expect(form.getByRole('checkbox', { name: 'Authorization code' }).isChecked()).resolves.toBe(true);
    await form.getByRole('checkbox', { name: 'Client credentials' }).check();
    await expect(form.getByLabel('Authentication method').inputValue()).resolves.toBe('client_secret_basic');
    // The JWK Set URL is asked for only with private key JWT.
    await expect(form.getByLabel('JWK Set URL').count()).resolves.toBe(0);
    await checkScreen(page, 'new');
    await form.getByRole('button', { name: 'Create app' }).click();

    const once = page.getByRole('region', { name: 'App created' });
    await once.waitFor();
    clientID = (await once.getByTestId('client-id').innerText()).trim();
    firstSecret = (await once.getByTestId('client-secret').innerText()).trim();
    expect(clientID).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(firstSecret).toMatch(/^[A-Za-z0-9_-]{64}$/);
    await once.getByText(/you will not see it again/i).first().waitFor();
    await once.getByRole('button', { name: 'Copy the client secret' }).waitFor();
    await once.getByRole('button', { name: 'Copy the client ID' }).waitFor();

    // The list shows it, under the issuer and discovery URL.
    const row = appRow();
    await row.getByText(clientID).waitFor();
    await row.getByText(firstRedirect).waitFor();
    await row.getByText('first-party').waitFor();
    await row.getByText(/client credentials/i).waitFor();
    await row.getByRole('button', { name: `Copy the client ID of ${appName}` }).waitFor();
    const provider = page.getByRole('region', { name: 'OpenID Provider', exact: true });
    await provider.getByTestId('issuer').waitFor();
    issuer = (await provider.getByTestId('issuer').innerText()).trim();
    expect(issuer).toBe(`${t.config.publicUrl}/oidc/${tenant.slug}/${DEFAULT_SECTOR_SLUG}`);
    await expect(provider.getByTestId('discovery').innerText()).resolves.toBe(`${issuer}/.well-known/openid-configuration`);
    issuerPath = new URL(issuer).pathname;
    await checkScreen(page, 'created');

    const discovery = await t.http().get(`${issuerPath}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect(discovery.body.issuer).toBe(issuer);

    const token = await tokenWith(firstSecret);
    expect(token.status).toBe(200);
    expect(token.body.access_token).toEqual(expect.any(String));

    // Dismissed, the secret is gone for good: the list never shows it.
    await once.getByRole('button', { name: /done|hide/i }).click();
    await expect(page.getByText(firstSecret).count()).resolves.toBe(0);
    await checkScreen(page, 'list');
  });

  it("edits the app's redirect URIs: a bad one shows the API's field violation beside the field, a good list is saved", async () => {
    await appRow().getByRole('button', { name: `Edit ${appName}` }).click();
    const form = page.getByRole('form', { name: `Edit ${appName}` });
    const redirects = form.getByLabel('Redirect URIs', { exact: true });
    await expect(redirects.inputValue()).resolves.toBe(firstRedirect);
    await expect(form.getByRole('checkbox', { name: 'Client credentials' }).isChecked()).resolves.toBe(true);

    // Not a URL: the service refuses it, and its violation sits beside the field.
    await redirects.fill('not-a-url');
    await form.getByRole('button', { name: 'Save app' }).click();
    await eventually(async () => (await redirects.getAttribute('aria-invalid')) === 'true', 10_000, 'the redirect URIs violation beside the field');
    expect(await describedText(page, (await redirects.getAttribute('aria-describedby')) ?? '')).toMatch(/URL/i);
    await checkScreen(page, 'edit-error');

    await redirects.fill(editedRedirects.join('\n'));
    await checkScreen(page, 'edit');
    await form.getByRole('button', { name: 'Save app' }).click();
    await page.getByRole('status').filter({ hasText: /saved/i }).first().waitFor();
    await form.waitFor({ state: 'detached' });
    for (const uri of editedRedirects) await appRow().getByText(uri).waitFor();
    await expect(appRow().getByText(firstRedirect, { exact: true }).count()).resolves.toBe(0);

    const stored = await t.http().get(clientURL()).set(auth());
    expect(stored.status).toBe(200);
    expect(stored.body.redirectURIs).toEqual(editedRedirects);
    expect([...stored.body.grantTypes].sort()).toEqual(['authorization_code', 'client_credentials', 'refresh_token']);
    // The secret survives a change of settings.
    expect((await tokenWith(firstSecret)).status).toBe(200);
  });

  it('rotates the secret after a confirmation: the new one is shown once, the old one is refused at once', async () => {
    await appRow().getByRole('button', { name: `Rotate secret of ${appName}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('heading', { name: `Rotate the secret of ${appName}?` }).waitFor();
    await checkScreen(page, 'rotate-confirm');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();

    const once = page.getByRole('region', { name: 'New client secret' });
    await once.waitFor();
    rotatedSecret = (await once.getByTestId('client-secret').innerText()).trim();
    expect(rotatedSecret).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(rotatedSecret).not.toBe(firstSecret);
    await once.getByText(/you will not see it again/i).first().waitFor();
    await checkScreen(page, 'rotated');

    const old = await tokenWith(firstSecret);
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    const fresh = await tokenWith(rotatedSecret);
    expect(fresh.status).toBe(200);

    await once.getByRole('button', { name: /done|hide/i }).click();
    await expect(page.getByText(rotatedSecret).count()).resolves.toBe(0);
  });

  it('deletes the app after a confirmation naming it: it leaves the list and its secret stops working', async () => {
    await appRow().getByRole('button', { name: `Delete ${appName}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('heading', { name: `Delete ${appName}?` }).waitFor();
    await checkScreen(page, 'delete-confirm');
    await dialog.getByRole('button', { name: 'Delete app' }).click();
    await page.getByRole('status').filter({ hasText: /deleted/i }).first().waitFor();
    await eventually(async () => (await appRow().count()) === 0, 10_000, 'the app to leave the list');
    await page.getByText('No apps yet.').waitFor();
    await checkScreen(page, 'deleted');

    expect((await t.http().get(clientURL()).set(auth())).status).toBe(404);
    const refused = await tokenWith(rotatedSecret);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_client');
  });
});
