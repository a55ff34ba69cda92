/**
 * The console's Roles screen and the Roles part of the user editor, in a real
 * browser: Debian's chromium through playwright-core, against the real service
 * (serving the built console from dist/console) on a real PostgreSQL.
 *
 * A tenant's first admin signs in to /console and, in the default sector:
 * - finds no roles (an empty state that says what to do), is told beside the field
 *   when a new role's name breaks the rules, creates a role with two permissions
 *   and sees it listed (the API answers it the same);
 * - edits its permissions (the name is fixed): the list and the API follow;
 * - ticks the role in a user's editor and saves: the user's permissions show,
 *   and the API answers the user's roles (a role deleted meanwhile is refused
 *   beside its checkbox first); on their own account the admin sees a note
 *   instead of checkboxes;
 * - filters the user list by the role (also reached from the role's row);
 * - deletes the role after a confirmation that says every holder loses it: it is
 *   gone, and the user holds no roles any more.
 * The screens and the dialog are checked with axe (no serious or critical
 * violations) and photographed to test-artifacts/screenshots/console-role*.png.
 *
 * Needs the console built first (dist/console). If chromium cannot start, the spec fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeAll, checkAccessibleScreen, newConsolePage, requireConsoleBuild, signInToConsole, startBrowser } from './support/browser';
import { createUser, ProvisionedTenant, provisionTenant } from './support/factories';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';

jest.setTimeout(120_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');
const tag = randomBytes(3).toString('hex');
const ROLE = `billing.viewer-${tag}`;
const GHOST = `ghost-${tag}`;

describe('console: a sector’s roles and a user’s roles, in chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let tenant: ProvisionedTenant;
  let targetSub = '';

  const target = `fay.${tag}@example.test`;
  const bystander = `gus.${tag}@example.test`;
  const bearer = () => ({ Authorization: `Bearer ${tenant.adminToken}` });
  const rolesOfSector = async () => (await t.http().get(`/api/v1/sectors/${tenant.rootSectorID}/roles`).set(bearer())).body as { roles: Array<Record<string, unknown>> };
  const rolesOfUser = async (sub: string) => {
    const res = await t.http().get(`/api/v1/users/${sub}/roles`).set(bearer());
    expect(res.status).toBe(200);
    return res.body as { roles: string[]; permissions: string[] };
  };
  const nav = () => page.getByRole('navigation', { name: /console/i });
  const rolesTable = () => page.getByRole('table', { name: 'Roles of this sector' });
  const roleRow = () => rolesTable().getByRole('row').filter({ has: page.getByText(ROLE, { exact: true }) });
  const usersTable = () => page.getByRole('table', { name: 'Users of this sector' });
  const userRow = (email: string) => usersTable().getByRole('row').filter({ hasText: email });

  const checkScreen = (name: string) => checkAccessibleScreen(page, `console-${name}`, SHOTS, { dark: false });

  /** Waits until the users table shows exactly these emails (one row each, under the header row). */
  async function listed(emails: string[], what: string): Promise<void> {
    await eventually(
      async () => {
        const rows = await usersTable().getByRole('row').allInnerTexts();
        return rows.length === emails.length + 1 && emails.every((e) => rows.some((r) => r.includes(e)));
      },
      10_000,
      what,
    );
  }

  /** The permissions the role's row lists, in order. */
  const listedPermissions = async () => (await roleRow().locator('code').allInnerTexts()).filter((p) => p !== ROLE);

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    t = await startTestApp({ env: { ...NO_THROTTLE } });
    tenant = await provisionTenant(t);
    targetSub = await createUser(t, tenant.adminToken, tenant.rootSectorID, { email: target, password: `fay-${tag}-password`, profile: { name: 'Fay Example' } });
    await createUser(t, tenant.adminToken, tenant.rootSectorID, { email: bystander, password: `gus-${tag}-password` });
    browser = await startBrowser();
    ({ context, page } = await newConsolePage(browser, t.baseUrl));
  });

  afterAll(() => closeAll([context, browser], t));

  it('creates a role with two permissions and lists it; a bad name is refused beside its field', async () => {
    await signInToConsole(page, t.baseUrl, { username: tenant.adminEmail, password: tenant.adminPassword, sectorID: tenant.rootSectorID });
    // Tokens live in the page's memory, so screens are reached through the navigation, never a reload.
    await nav().getByRole('link', { name: 'Roles', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Roles' }).waitFor();
    await page.getByText('This sector has no roles yet.').waitFor();
    await checkScreen('roles-empty');

    await page.getByRole('button', { name: 'New role' }).click();
    const form = page.getByRole('form', { name: 'New role' });
    const name = form.getByLabel(/^Role name/);
    await name.fill('billing Viewer');
    await form.getByRole('button', { name: 'Create role' }).click();
    await eventually(async () => (await name.getAttribute('aria-invalid')) === 'true', 10_000, 'the name’s violation');
    const described = (await name.getAttribute('aria-describedby')) ?? '';
    await expect(page.locator(`[id="${described.split(' ').pop()}"]`).innerText()).resolves.toBe('Only lower-case letters, digits and _ . : - (not a space, “V”).');
    await checkScreen('role-new-invalid');

    await name.fill(ROLE);
    await form.getByLabel('Description').fill('Reads and exports invoices');
    await form.getByLabel('Permissions').fill('invoices:read\n\n  invoices:export  \ninvoices:read\n');
    await form.getByRole('button', { name: 'Create role' }).click();
    await page.getByRole('status').filter({ hasText: `Role ${ROLE} created.` }).first().waitFor();
    await form.waitFor({ state: 'detached' });

    await roleRow().getByText('Reads and exports invoices').waitFor();
    await eventually(async () => JSON.stringify(await listedPermissions()) === JSON.stringify(['invoices:read', 'invoices:export']), 10_000, 'the two permissions listed');
    await expect(page.getByText('This sector has no roles yet.').count()).resolves.toBe(0);
    expect((await rolesOfSector()).roles).toEqual([expect.objectContaining({ name: ROLE, description: 'Reads and exports invoices', permissions: ['invoices:read', 'invoices:export'] })]);
    await checkScreen('roles');
  });

  it('edits the role’s permissions (its name is fixed): the list and the API follow', async () => {
    await roleRow().getByRole('button', { name: `Edit role ${ROLE}` }).click();
    const form = page.getByRole('form', { name: `Edit role ${ROLE}` });
    await form.waitFor();
    await expect(form.getByLabel(/^Role name/).count()).resolves.toBe(0);
    await form.getByText(ROLE, { exact: true }).waitFor();
    const permissions = form.getByLabel('Permissions');
    await expect(permissions.inputValue()).resolves.toBe('invoices:read\ninvoices:export');
    await permissions.fill('invoices:read\ninvoices:write');
    await form.getByRole('button', { name: 'Save role' }).click();
    await page.getByRole('status').filter({ hasText: `Role ${ROLE} saved.` }).first().waitFor();
    await form.waitFor({ state: 'detached' });

    await eventually(async () => JSON.stringify(await listedPermissions()) === JSON.stringify(['invoices:read', 'invoices:write']), 10_000, 'the edited permissions listed');
    expect((await rolesOfSector()).roles).toEqual([expect.objectContaining({ name: ROLE, description: 'Reads and exports invoices', permissions: ['invoices:read', 'invoices:write'] })]);
  });

  it('gives the role to a user in the user editor and shows their permissions; never on one’s own account', async () => {
    // A second role, which another admin will delete while the user's editor is open.
    await page.getByRole('button', { name: 'New role' }).click();
    const form = page.getByRole('form', { name: 'New role' });
    await form.getByLabel(/^Role name/).fill(GHOST);
    await form.getByLabel('Permissions').fill('ghost:read');
    await form.getByRole('button', { name: 'Create role' }).click();
    await page.getByRole('status').filter({ hasText: `Role ${GHOST} created.` }).first().waitFor();
    await nav().getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await listed([tenant.adminEmail, target, bystander], 'the three users of the sector');
    await userRow(target).getByRole('button', { name: `Edit ${target}` }).click();
    const roles = page.getByRole('region', { name: `Edit ${target}` }).getByRole('group', { name: 'Roles' });
    const box = roles.getByRole('checkbox', { name: ROLE });
    await box.waitFor();
    await expect(box.isChecked()).resolves.toBe(false);
    await roles.getByText('None.').waitFor();

    // A role another admin deletes while the editor is open: the refusal shows beside it, nothing is saved.
    const ghostBox = roles.getByRole('checkbox', { name: GHOST });
    await ghostBox.waitFor();
    expect((await t.http().delete(`/api/v1/sectors/${tenant.rootSectorID}/roles/${GHOST}`).set(bearer())).status).toBe(200);
    await ghostBox.check();
    await box.check();
    await roles.getByRole('button', { name: 'Save roles' }).click();
    await roles.getByRole('alert').filter({ hasText: 'The roles were not saved.' }).waitFor();
    await eventually(async () => (await ghostBox.getAttribute('aria-invalid')) === 'true', 10_000, 'the violation beside the deleted role');
    const ghostError = ((await ghostBox.getAttribute('aria-describedby')) ?? '').split(' ').pop();
    await expect(page.locator(`[id="${ghostError}"]`).innerText()).resolves.toContain(`no role named "${GHOST}"`);
    await roles.getByText('Not in the sector’s list any more.').waitFor();
    await expect(rolesOfUser(targetSub)).resolves.toEqual({ roles: [], permissions: [] });
    // Unticked, the deleted role leaves the list (it is neither held nor in the sector any more).
    await ghostBox.click();
    await ghostBox.waitFor({ state: 'detached' });

    // Before saving, the permissions the ticked roles would give.
    await expect(roles.getByRole('list', { name: 'Permissions after saving' }).getByRole('listitem').allInnerTexts()).resolves.toEqual(['invoices:read', 'invoices:write']);
    await roles.getByRole('button', { name: 'Save roles' }).click();
    await page.getByRole('status').filter({ hasText: `Roles of ${target} saved.` }).first().waitFor();
    const held = roles.getByRole('list', { name: 'Permissions', exact: true });
    await held.waitFor();
    await expect(held.getByRole('listitem').allInnerTexts()).resolves.toEqual(['invoices:read', 'invoices:write']);
    await expect(roles.getByRole('checkbox', { name: ROLE }).isChecked()).resolves.toBe(true);
    await checkScreen('user-roles');

    await expect(rolesOfUser(targetSub)).resolves.toEqual({ roles: [ROLE], permissions: ['invoices:read', 'invoices:write'] });

    // One's own account: no checkboxes, a note that says why.
    await userRow(tenant.adminEmail).getByRole('button', { name: `Edit ${tenant.adminEmail}` }).click();
    const own = page.getByRole('region', { name: `Edit ${tenant.adminEmail}` }).getByRole('group', { name: 'Roles' });
    await own.getByText(/your own account: you cannot change your own roles/i).waitFor();
    await expect(own.getByRole('checkbox').count()).resolves.toBe(0);
    await expect(own.getByRole('button', { name: 'Save roles' }).count()).resolves.toBe(0);
  });

  it('filters the user list by the role, also from the role’s row', async () => {
    const filter = page.getByLabel('Role', { exact: true });
    await filter.selectOption({ label: ROLE });
    await listed([target], 'the holder alone');
    await checkScreen('users-by-role');
    await filter.selectOption({ label: 'Any' });
    await listed([tenant.adminEmail, target, bystander], 'the three users again');

    await nav().getByRole('link', { name: 'Roles', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Roles' }).waitFor();
    await roleRow().getByRole('link', { name: `Users with role ${ROLE}` }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await expect(page.getByLabel('Role', { exact: true }).inputValue()).resolves.toBe(ROLE);
    await listed([target], 'the holder alone, from the role’s link');
  });

  it('deletes the role after a confirmation that says every holder loses it: it is gone, and so are the user’s roles', async () => {
    await nav().getByRole('link', { name: 'Roles', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Roles' }).waitFor();
    await roleRow().getByRole('button', { name: `Delete role ${ROLE}` }).click();

    const dialog = page.getByRole('dialog', { name: `Delete role ${ROLE}?` });
    await dialog.waitFor();
    await expect(dialog.innerText()).resolves.toMatch(/every user holding it loses it/i);
    await expect(dialog.getByRole('button', { name: 'Cancel' }).evaluate((b) => b === (globalThis as any).document.activeElement)).resolves.toBe(true);
    await checkScreen('role-delete-dialog');
    await dialog.getByRole('button', { name: 'Delete role' }).click();
    await page.getByRole('status').filter({ hasText: `Role ${ROLE} deleted.` }).first().waitFor();
    await dialog.waitFor({ state: 'hidden' });

    await page.getByText('This sector has no roles yet.').waitFor();
    await expect(rolesTable().getByText(ROLE, { exact: true }).count()).resolves.toBe(0);
    expect((await rolesOfSector()).roles).toEqual([]);
    await expect(rolesOfUser(targetSub)).resolves.toEqual({ roles: [], permissions: [] });

    // The user's editor says so too.
    await nav().getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await listed([tenant.adminEmail, target, bystander], 'the three users');
    await userRow(target).getByRole('button', { name: `Edit ${target}` }).click();
    const roles = page.getByRole('region', { name: `Edit ${target}` }).getByRole('group', { name: 'Roles' });
    await roles.getByText(/this sector has no roles yet/i).waitFor();
  });
});
