/**
 * The admin console in a real browser (issue 13): Debian's chromium through
 * playwright-core, against the real service (serving the built console from
 * dist/console) on a real PostgreSQL, with a real SMTP server for the mail.
 *
 * A platform admin signs in to /console and provisions a tenant with its first
 * admin, then reads it with ping and stats. That admin signs in and:
 * - changes the settings: a bad value shows the API's field violation beside the
 *   input, then is fixed and saved; the live template preview follows the typing,
 *   and the HTML preview runs sandboxed (a script in a template never runs);
 * - creates a user (an address the service refuses is said once, beside its
 *   input) and invites another (the invitation mail arrives, with the subject
 *   just saved), finds them with the server-side search, resends the
 *   invitation (a second mail), edits a profile and the admin flag, and deletes a
 *   user after a confirmation;
 * - creates an API token (shown once, with a copy button), which the test uses
 *   once through fetch, revokes it, and the token is refused afterwards;
 * - creates a sector, finds it, opens its screens and switches back; configures a
 *   social provider (its violation beside the input; the secret write-only).
 * Every main screen is checked with axe (no serious or critical violations) and
 * photographed to test-artifacts/screenshots/console-*.png; one pass runs at
 * 360 px wide in the dark colour scheme (no sideways scrolling).
 *
 * Needs `npm run build` first (dist/console). If chromium cannot start, the spec fails.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeAll, checkAccessibleScreen, newConsolePage, signInToConsole, startBrowser } from './support/browser';
import { FAST_WORKER, MAIL_FROM, startSmtpServer, TestSmtpServer } from './support/smtp';
import { ADMIN_EMAIL, ADMIN_PASSWORD, NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

jest.setTimeout(180_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');
const CONSOLE_BUILD = join(__dirname, '..', 'dist', 'console', 'index.html');
const tag = randomBytes(3).toString('hex');

/** Polls `check` until it answers true (or fails after `timeoutMs`). */
async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** axe, and a screenshot to console-<name>.png, in the page's current colour scheme. */
const checkScreen = (page: Page, name: string) => checkAccessibleScreen(page, `console-${name}`, SHOTS, { dark: false });

describe('admin console in chromium', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  const tenantSlug = `acme-${tag}`;
  const tenantAdminEmail = `owner@${tenantSlug}.test`;
  const tenantAdminPassword = `owner-${tag}-password`;
  let tenantID = '';
  let rootSectorID = '';

  async function signOut(p: Page): Promise<void> {
    await p.getByRole('button', { name: /sign out/i }).click();
    await p.waitForURL(/\/sign-in/);
  }

  beforeAll(async () => {
    if (!existsSync(CONSOLE_BUILD)) throw new Error(`${CONSOLE_BUILD} is missing: run \`npm run build\` before this spec`);
    mkdirSync(SHOTS, { recursive: true });
    smtp = await startSmtpServer();
    t = await startTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM, ...FAST_WORKER, ...NO_THROTTLE } });
    browser = await startBrowser();
    ({ context, page } = await newConsolePage(browser, t.baseUrl));
  });

  afterAll(() => closeAll([context, browser], t, smtp));

  it('a platform admin provisions a tenant with a first admin and reads it with ping and stats', async () => {
    await signInToConsole(page, t.baseUrl, { username: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    await page.getByRole('link', { name: 'Tenants' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tenants' }).waitFor();
    await checkScreen(page, 'tenants');

    const form = page.getByRole('form', { name: 'Provision a tenant' });
    await form.getByLabel(/^Name/).fill(`Acme ${tag}`).catch(async (err: Error) => {
      throw new Error(`${await page.locator('main').ariaSnapshot()}\n${err.message}`);
    });
    await form.getByLabel(/^Slug/).fill(tenantSlug);
    await form.getByLabel('First admin email').fill(tenantAdminEmail);
    await form.getByLabel('First admin password').fill(tenantAdminPassword);
    await form.getByRole('button', { name: 'Provision' }).click();

    const result = page.getByRole('region', { name: 'Tenant provisioned' });
    await result.waitFor();
    tenantID = (await result.getByTestId('tenant-id').innerText()).trim();
    rootSectorID = (await result.getByTestId('root-sector-id').innerText()).trim();
    expect(tenantID).toMatch(/^[0-9a-f-]{36}$/);
    expect(rootSectorID).toMatch(/^[0-9a-f-]{36}$/);

    // The tenant list (server-side search) shows it.
    await page.getByLabel('Search tenants').fill(tenantSlug);
    await page.getByRole('table', { name: 'Tenants of the platform' }).getByText(tenantSlug, { exact: true }).waitFor();

    // Read it back with ping and stats.
    const read = page.getByRole('form', { name: 'Read a tenant' });
    await read.getByLabel('Tenant ID').fill(tenantID);
    await read.getByLabel('Check the database (ping)').check();
    await read.getByLabel('Include statistics').check();
    await read.getByRole('button', { name: 'Read' }).click();
    const details = page.getByRole('region', { name: /^Tenant details/ });
    await details.getByText('Reachable').waitFor();
    await expect(details.getByTestId('stat-userCount').innerText()).resolves.toBe('1');
    await expect(details.getByTestId('stat-adminCount').innerText()).resolves.toBe('1');
    await checkScreen(page, 'tenant-details');
    await signOut(page);
  });

  it("the tenant's admin changes settings: a bad value shows the API's field violation, a good one saves", async () => {
    await signInToConsole(page, t.baseUrl, { username: tenantAdminEmail, password: tenantAdminPassword, sectorID: rootSectorID });
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 1, name: /settings/i }).waitFor();
    const lifetime = page.getByLabel('Access token lifetime', { exact: false });
    await expect(lifetime.inputValue()).resolves.toBe('3600');

    // Out of range: the service refuses it; its field violation sits beside the input.
    await lifetime.fill('99999999999');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await waitUntil(async () => (await lifetime.getAttribute('aria-invalid')) === 'true', 'the field violation beside the input');
    const describedBy = (await lifetime.getAttribute('aria-describedby')) ?? '';
    const errorText = await page.evaluate((ids) => ids.split(/\s+/).map((id) => (globalThis as any).document.getElementById(id)?.textContent ?? '').join(' '), describedBy);
    expect(errorText).toMatch(/AccessTokenDuration|between|range|must/i);
    await checkScreen(page, 'settings-error');

    // Fixed: saved, the error is gone and the value is stored.
    await lifetime.fill('7200');
    await page.getByLabel('Invitation subject').fill('Join {{sectorName}} today');
    // The service renders the preview once typing pauses.
    const subjectPreview = page.getByTestId('preview-invite-subject');
    await waitUntil(async () => (await subjectPreview.innerText()) === `Join Acme ${tag} today`, 'the rendered subject in the preview');
    // The HTML body renders in a sandboxed frame, values escaped: a script in the template never runs.
    await page.getByLabel('Invitation HTML body').fill('<p id="x">Hi {{email}} <script>parent.document.title="pwned"</script></p>');
    const frame = page.frameLocator('[data-testid="preview-invite-html"]');
    await frame.getByText('Hi ada@example.com').waitFor();
    expect(await page.title()).not.toBe('pwned');
    await page.getByLabel('Invitation HTML body').fill('');
    await frame.getByText('Accept the invitation').waitFor();
    // An empty template previews the built-in text, as the service renders it.
    await page.frameLocator('[data-testid="preview-otp-html"]').getByText('Your verification code is').waitFor();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: /saved/i }).first().waitFor();
    await expect(lifetime.getAttribute('aria-invalid')).resolves.not.toBe('true');
    const stored = await fetch(`${t.baseUrl}/api/v1/sectors/${rootSectorID}/settings`, { headers: { Authorization: `Bearer ${await t.login(tenantAdminEmail, tenantAdminPassword, rootSectorID)}` } });
    const settings = (await stored.json()) as Record<string, unknown>;
    expect(settings.AccessTokenDuration).toBe('7200');
    expect(settings.InviteEmailSubject).toBe('Join {{sectorName}} today');
    await checkScreen(page, 'settings');
  });

  it('creates a user, invites another (the mail arrives), and finds them in the table', async () => {
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: /users/i }).waitFor();

    const created = `dana.${tag}@example.test`;
    await page.getByRole('button', { name: 'New user' }).click();
    const form = page.getByRole('form', { name: 'New user' });
    const email = form.getByLabel(/^Email/);
    await form.getByLabel('Full name').fill('Dana Example');
    await form.getByLabel(/^Initial password/).fill(`dana-${tag}-password`);
    // An address only the service refuses: its violation is said once, beside the input; the error points there.
    await email.fill(`dana.${tag}.example.test`);
    await form.getByRole('button', { name: 'Create user' }).click();
    const refused = form.getByRole('alert').filter({ hasText: 'The user was not created.' });
    await refused.waitFor();
    await waitUntil(async () => (await email.getAttribute('aria-invalid')) === 'true', 'the email violation beside the input');
    await expect(page.getByText('must be an email address').count()).resolves.toBe(1);
    await expect(refused.getByText('Correct the marked field.', { exact: true }).count()).resolves.toBe(1);
    await email.fill(created);
    await form.getByRole('button', { name: 'Create user' }).click();
    await page.getByRole('status').filter({ hasText: /created/i }).first().waitFor();

    // The form stays open for the next one.
    const invited = `eli.${tag}@example.test`;
    await form.getByLabel(/^Email/).fill(invited);
    await form.getByLabel('Full name').fill('Eli Example');
    await form.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('status').filter({ hasText: /invit/i }).first().waitFor();
    const mail = await smtp.waitForMail((m) => m.to.includes(invited), 15_000);
    expect(mail.subject).toBe(`Join Acme ${tag} today`);
    expect(mail.text).toMatch(/invite\?token=[A-Za-z0-9_-]{64}/);

    // The table shows both; the search narrows it (server side).
    const table = page.getByRole('table', { name: /users/i });
    await table.getByText(created).waitFor();
    await table.getByText(invited).waitFor();
    await page.getByLabel('Search users').fill('eli.');
    await waitUntil(async () => (await table.getByRole('row').count()) === 2, 'the search to leave one row');
    await table.getByText(invited).waitFor();
    await expect(table.getByText('pending').count()).resolves.toBe(1);
    await checkScreen(page, 'users');

    // Resend the invitation: a second mail with a new link.
    await table.getByRole('button', { name: `Resend invitation to ${invited}` }).click();
    await page.getByRole('status').filter({ hasText: /sent again/i }).first().waitFor();
    await waitUntil(async () => smtp.find((m) => m.to.includes(invited)).length === 2, 'the second invitation mail');

    // Edit the created user: a new name and the admin flag.
    await page.getByLabel('Search users').fill('dana.');
    await table.getByText(created).waitFor();
    await table.getByRole('button', { name: `Edit ${created}` }).click();
    const edit = page.getByRole('form', { name: `Edit ${created}` });
    await edit.getByLabel('Full name').fill('Dana Q. Example');
    await edit.getByLabel('Administrator of this sector').check();
    await checkScreen(page, 'user-edit');
    await edit.getByRole('button', { name: 'Save user' }).click();
    await page.getByRole('status').filter({ hasText: /user updated/i }).first().waitFor();
    await table.getByText('Dana Q. Example').waitFor();
    await table.getByText('admin', { exact: true }).waitFor();

    // Delete the invited one, with confirmation.
    await page.getByLabel('Search users').fill(invited);
    await table.getByText(invited).waitFor();
    await table.getByRole('button', { name: `Delete ${invited}` }).click();
    const confirm = page.getByRole('dialog');
    await confirm.getByRole('button', { name: 'Delete user' }).click();
    await page.getByRole('status').filter({ hasText: /deleted/i }).first().waitFor();
    await page.getByText('No user matches these filters.').waitFor();
    await page.getByLabel('Search users').fill('');
  });

  it('creates an API token shown once with a copy button, which works once through fetch and is refused after revocation', async () => {
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('heading', { level: 1, name: /api tokens/i }).waitFor();
    await page.getByLabel('Token name').fill(`ci-${tag}`);
    await page.getByRole('button', { name: 'Create token' }).click();
    const once = page.getByRole('region', { name: 'New API token' });
    await once.waitFor();
    const token = (await once.getByTestId('token-value').innerText()).trim();
    expect(token).toMatch(/^iam_[A-Za-z0-9_-]{64}$/);
    await once.getByRole('button', { name: /copy/i }).waitFor();
    await checkScreen(page, 'tokens-created');

    const users = () => fetch(`${t.baseUrl}/api/v1/sectors/${rootSectorID}/users?pageSize=1`, { headers: { Authorization: `Bearer ${token}` } });
    const ok = await users();
    expect(ok.status).toBe(200);

    // Dismissed, the value is gone for good: the list shows only its prefix.
    await once.getByRole('button', { name: /done|dismiss|hide/i }).click();
    await expect(page.getByText(token).count()).resolves.toBe(0);
    const row = page.getByRole('row').filter({ hasText: `ci-${tag}` });
    await row.getByText(token.slice(0, 8)).waitFor();

    await row.getByRole('button', { name: /revoke/i }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: /^revoke/i }).click();
    await page.getByRole('status').filter({ hasText: /revoked/i }).first().waitFor();
    const refused = await users();
    expect(refused.status).toBe(401);
    const body = (await refused.json()) as { code: number };
    expect(body.code).toBe(16);
    await checkScreen(page, 'tokens');
  });

  it('creates a sector and switches between sectors, configures a social provider, and works at 360 px in the dark scheme', async () => {
    await page.getByRole('link', { name: 'Sectors' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sectors' }).waitFor();
    const sectors = page.getByRole('table', { name: /sectors/i });
    await sectors.getByText('admin').first().waitFor();
    // Create a sector; the search finds it (server side) and its screens open from the row.
    await page.getByRole('button', { name: 'New sector' }).click();
    const create = page.getByRole('form', { name: 'New sector' });
    await create.getByLabel(/^Sector name/).fill(`Shop ${tag}`);
    await create.getByLabel(/^Sector slug/).fill(`shop-${tag}`);
    await create.getByLabel(/^Domain/).fill(`shop-${tag}.example.com`);
    await create.getByRole('button', { name: 'Create sector' }).click();
    await page.getByRole('status').filter({ hasText: /sector .* created/i }).first().waitFor();
    await page.getByLabel('Search sectors').fill(`shop-${tag}`);
    await waitUntil(async () => (await sectors.getByRole('row').count()) === 2, 'the search to find the new sector');
    await checkScreen(page, 'sectors');
    await sectors.getByRole('link', { name: `Settings of Shop ${tag}` }).click();
    await page.getByRole('heading', { level: 1, name: /settings/i }).waitFor();
    await page.locator(".page-lead").getByText(`Shop ${tag}`).waitFor();
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByText('No users yet.').waitFor();
    await page.getByLabel('Sector', { exact: true }).selectOption({ label: `Acme ${tag} (default)` });
    await page.getByRole('table', { name: /users/i }).getByText(tenantAdminEmail).waitFor();

    await page.getByRole('link', { name: 'Social login' }).click();
    await page.getByRole('heading', { level: 1, name: /social login/i }).waitFor();
    // Enabling Google without a client ID: the API's violation sits beside that input.
    const google = page.getByRole('form', { name: 'Google' });
    await google.getByLabel('Enable Google').check();
    await google.getByLabel('Google: Redirect URI').fill(`${t.baseUrl}/api/v1/oauth/google/callback`);
    await google.getByLabel('Google: Client secret').fill('google-client-secret');
    await google.getByRole('button', { name: 'Save Google' }).click();
    const clientID = google.getByLabel('Google: Client ID');
    await waitUntil(async () => (await clientID.getAttribute('aria-invalid')) === 'true', 'the client ID violation');
    await checkScreen(page, 'oauth-error');
    // Fixed and saved: the secret is stored, never shown, and its field is blank again ("leave blank to keep").
    await clientID.fill('google-client-id');
    await google.getByRole('button', { name: 'Save Google' }).click();
    await page.getByRole('status').filter({ hasText: /google saved/i }).first().waitFor();
    await google.getByText(/one is stored/i).first().waitFor();
    await expect(google.getByLabel('Google: Client secret').inputValue()).resolves.toBe('');
    await expect(page.getByText('google-client-secret').count()).resolves.toBe(0);
    await checkScreen(page, 'oauth');

    await page.setViewportSize({ width: 360, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    for (const [link, heading, name] of [
      ['Users', /users/i, 'users-360-dark'],
      ['Settings', /settings/i, 'settings-360-dark'],
    ] as const) {
      // At 360 px the navigation may sit behind a menu button.
      const menu = page.getByRole('button', { name: /menu/i });
      if (await menu.isVisible()) await menu.click();
      await page.getByRole('link', { name: link }).click();
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
      expect({ screen: name, width: overflow }).toEqual({ screen: name, width: 360 });
      await checkScreen(page, name);
    }
  });
});
