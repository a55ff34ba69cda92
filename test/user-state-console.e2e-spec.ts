/**
 * Disabling and enabling a user from the console, in a real browser: Debian's
 * chromium through playwright-core, against the real service (serving the built
 * console from dist/console) on a real PostgreSQL.
 *
 * A tenant's first admin signs in to /console, opens a user of the default sector
 * and:
 * - sees the account enabled, and disables it after a confirmation that names the
 *   user and says what follows (the dialog has no serious axe violations);
 * - finds the user marked "Disabled" in the list, and alone under the Status
 *   filter "Disabled" (that screen, too, has no serious axe violations); the
 *   user's password sign-in is refused (403 USER_DISABLED);
 * - enables the user again: the sign-in succeeds and the filter finds no one;
 * - cannot switch off their own account (the button is disabled, a hint says why).
 *
 * Needs the console built first (dist/console). If chromium cannot start, the spec fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeAll, checkAccessibleScreen, newConsolePage, requireConsoleBuild, signInToConsole, startBrowser } from './support/browser';
import { createUser, expectError, ProvisionedTenant, provisionTenant } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';

jest.setTimeout(120_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');
const tag = randomBytes(3).toString('hex');
const PERMISSION_DENIED = 7;

describe('console: disabling and enabling a user, in chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let tenant: ProvisionedTenant;

  const target = { email: `dora.${tag}@example.test`, password: `dora-${tag}-password` };
  const bystander = `eli.${tag}@example.test`;
  const signInAsTarget = () => t.http().post('/api/v1/login/password').send({ username: target.email, password: target.password, sectorID: tenant.rootSectorID });
  const table = () => page.getByRole('table', { name: 'Users of this sector' });
  const row = (email: string) => table().getByRole('row').filter({ hasText: email });

  /** Waits until the users table shows exactly these emails (one row each, under the header row). */
  async function listed(emails: string[], what: string): Promise<void> {
    await eventually(
      async () => {
        const rows = await table().getByRole('row').allInnerTexts();
        return rows.length === emails.length + 1 && emails.every((e) => rows.some((r) => r.includes(e)));
      },
      10_000,
      what,
    );
  }

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ env: { ...NO_THROTTLE } });
    tenant = await provisionTenant(t);
    await createUser(t, tenant.adminToken, tenant.rootSectorID, { email: target.email, password: target.password, profile: { name: 'Dora Example' } });
    await createUser(t, tenant.adminToken, tenant.rootSectorID, { email: bystander, password: `eli-${tag}-password` });
    browser = await startBrowser();
    ({ context, page } = await newConsolePage(browser, t.baseUrl));
  });

  afterAll(() => closeAll([context, browser], t));

  it('disables a user after a confirmation: the list marks them, the Status filter finds them, and their sign-in is refused', async () => {
    expect((await signInAsTarget()).body.status).toBe('SUCCESS');
    await signInToConsole(page, t.baseUrl, { username: tenant.adminEmail, password: tenant.adminPassword, sectorID: tenant.rootSectorID });
    // Tokens live in the page's memory, so the screen is reached through the navigation, never a reload.
    await page.getByRole('navigation', { name: /console/i }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await listed([tenant.adminEmail, target.email, bystander], 'the three users of the sector');
    await expect(table().getByText('Disabled', { exact: true }).count()).resolves.toBe(0);

    await row(target.email).getByRole('button', { name: `Edit ${target.email}` }).click();
    const status = page.getByRole('region', { name: `Edit ${target.email}` }).getByRole('group', { name: 'Account status' });
    await status.getByText('Enabled', { exact: true }).waitFor();
    await status.getByRole('button', { name: 'Disable user' }).click();

    // The confirmation names the user and says what follows; focus starts on Cancel.
    const dialog = page.getByRole('dialog', { name: `Disable ${target.email}?` });
    await dialog.waitFor();
    await expect(dialog.innerText()).resolves.toMatch(/signed out everywhere at once[\s\S]*cannot sign in until an admin enables them again/);
    await expect(dialog.getByRole('button', { name: 'Cancel' }).evaluate((b) => b === (globalThis as any).document.activeElement)).resolves.toBe(true);
    await checkAccessibleScreen(page, 'console-user-disable', SHOTS, { dark: false });
    await dialog.getByRole('button', { name: 'Disable user' }).click();
    await page.getByRole('status').filter({ hasText: /disabled and signed out everywhere/i }).first().waitFor();
    await dialog.waitFor({ state: 'hidden' });

    // The editor and the list say so, in words.
    await status.getByText('Disabled', { exact: true }).waitFor();
    await status.getByRole('button', { name: 'Enable user' }).waitFor();
    await row(target.email).getByText('Disabled', { exact: true }).waitFor();
    await expect(row(bystander).getByText('Disabled', { exact: true }).count()).resolves.toBe(0);
    await checkAccessibleScreen(page, 'console-user-disabled', SHOTS, { dark: false });

    // The Status filter: "Disabled" lists exactly that user, "Enabled" everyone else.
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Disabled' });
    await listed([target.email], 'the disabled user alone');
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Enabled' });
    await listed([tenant.adminEmail, bystander], 'the enabled users');
    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'Disabled' });
    await listed([target.email], 'the disabled user alone, again');

    // A correct password no longer signs them in.
    expectError(await signInAsTarget(), 403, PERMISSION_DENIED, 'USER_DISABLED');
  });

  it('enables the user again: the sign-in succeeds and the Disabled filter is empty', async () => {
    const status = page.getByRole('region', { name: `Edit ${target.email}` }).getByRole('group', { name: 'Account status' });
    await status.getByRole('button', { name: 'Enable user' }).click();
    await page.getByRole('status').filter({ hasText: /enabled: they can sign in again/i }).first().waitFor();
    await status.getByText('Enabled', { exact: true }).waitFor();
    await page.getByText('No user matches these filters.').waitFor();
    expect((await signInAsTarget()).body.status).toBe('SUCCESS');

    await page.getByLabel('Status', { exact: true }).selectOption({ label: 'All' });
    await listed([tenant.adminEmail, target.email, bystander], 'the three users again');
    await expect(table().getByText('Disabled', { exact: true }).count()).resolves.toBe(0);
  });

  it('does not offer admins to disable their own account, and says why', async () => {
    await row(tenant.adminEmail).getByRole('button', { name: `Edit ${tenant.adminEmail}` }).click();
    const status = page.getByRole('region', { name: `Edit ${tenant.adminEmail}` }).getByRole('group', { name: 'Account status' });
    const button = status.getByRole('button', { name: 'Disable user' });
    await expect(button.isDisabled()).resolves.toBe(true);
    const hint = await button.getAttribute('aria-describedby');
    expect(hint).toBeTruthy();
    await expect(page.locator(`[id="${hint}"]`).innerText()).resolves.toMatch(/your own account/i);
  });
});
