/**
 * A user's own page in the console, in a real browser: Debian's chromium through
 * playwright-core, against the real service (serving the built console from
 * dist/console) on a real PostgreSQL, with a real SMTP server for the mail.
 *
 * Beforehand, through the API: a user of the tenant's default sector with a
 * password, an authenticator-app registration of their own and two sessions (two
 * password sign-ins); a linked Google account is stored in the tenant's database
 * (linking needs the provider, which the page only lists).
 *
 * The tenant's first admin signs in to /console and:
 * - opens the user from the Users list (the email links to the page) and sees the
 *   profile, the factor, the linked account and the two sessions;
 * - opens the profile editor (focus moves to its first field) and closes it (focus
 *   returns to "Edit profile"); opens and cancels a confirmation (focus returns to
 *   the button that opened it);
 * - revokes one session (the API then lists one);
 * - sends a password reset (the SMTP server receives the link);
 * - at 390 px: the page and the Users list scroll no sideways and a row's action
 *   is clickable (the rows are cards); the API tokens and Webhooks screens fit too;
 * - deletes the user after a confirmation and lands on the list, without them.
 * Every screen is axe-checked (no serious violations) in light and dark, and
 * photographed to test-artifacts/screenshots/console-user-page*.png at 1280 and 390 px.
 *
 * Needs the console built first (dist/console). If chromium cannot start, the spec fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeAll, checkAccessibleScreen, newConsolePage, pageWidth, requireConsoleBuild, seriousViolations, signInToConsole, startBrowser } from './support/browser';
import { createUser, ProvisionedTenant, provisionTenant, tenantSql } from './support/factories';
import { FAST_WORKER, MAIL_FROM, startSmtpServer, TestSmtpServer } from './support/smtp';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';

jest.setTimeout(180_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');
const tag = randomBytes(3).toString('hex');

describe('console: a user’s page, in chromium', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let tenant: ProvisionedTenant;
  let sub: string;

  // A long address: it must wrap, never widen the page.
  const target = { email: `frieda.a-rather-long-mailbox-name.${tag}@a-long-subdomain.example.test`, password: `frieda-${tag}-password`, name: 'Frieda Example' };
  const bystander = `gus.${tag}@example.test`;
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const signInAsTarget = () => t.http().post('/api/v1/login/password').send({ username: target.email, password: target.password, sectorID: tenant.rootSectorID });
  const sessionsOf = async () => (await t.http().get(`/api/v1/users/${sub}/sessions`).set(bearer(tenant.adminToken))).body.sessions as Array<{ id: string }>;
  const main = () => page.getByRole('main');
  const region = (name: string) => page.getByRole('region', { name });
  const usersTable = () => page.getByRole('table', { name: 'Users of this sector' });

  /** axe in light and dark, and a screenshot of each. */
  const checkScreen = (name: string) => checkAccessibleScreen(page, `console-${name}`, SHOTS);

  const isFocused = (locator: ReturnType<Page['getByRole']>) => locator.evaluate((el) => el === (globalThis as any).document.activeElement);

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    smtp = await startSmtpServer();
    t = await startTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM, ...FAST_WORKER, ...NO_THROTTLE } });
    tenant = await provisionTenant(t);
    sub = await createUser(t, tenant.adminToken, tenant.rootSectorID, { email: target.email, password: target.password, profile: { name: target.name } });
    await createUser(t, tenant.adminToken, tenant.rootSectorID, { email: bystander, password: `gus-${tag}-password` });

    // Two sessions; the first sign-in's token (recent) adds the user's own authenticator app.
    const first = await signInAsTarget();
    expect(first.body.status).toBe('SUCCESS');
    expect((await signInAsTarget()).body.status).toBe('SUCCESS');
    const totp = await t.http().post(`/api/v1/users/${sub}/otp-registrations`).set(bearer(first.body.token as string)).send({ type: 'totp' });
    expect({ status: totp.status, body: totp.body }).toMatchObject({ status: 200, body: { registrationID: expect.any(String) } });
    // A linked Google account, stored as a finished link flow stores it.
    await tenantSql(t, tenant.tenantID, `INSERT INTO linked_identities (id, user_id, sector_id, provider, issuer, subject, email) VALUES ($1, $2, $3, 'google', 'https://accounts.google.com', $4, $5)`, [
      randomUUID(),
      sub,
      tenant.rootSectorID,
      `google-${tag}`,
      `frieda.${tag}@gmail.test`,
    ]);
    expect(await sessionsOf()).toHaveLength(2);
    const token = await t.http().post(`/api/v1/sectors/${tenant.rootSectorID}/tokens`).set(bearer(tenant.adminToken)).send({ name: `ci-${tag}` });
    expect(token.status).toBe(200);

    browser = await startBrowser();
    ({ context, page } = await newConsolePage(browser, t.baseUrl));
  });

  afterAll(() => closeAll([context, browser], t, smtp));

  it('opens the user from the list: profile, factor, linked account and two sessions', async () => {
    await signInToConsole(page, t.baseUrl, { username: tenant.adminEmail, password: tenant.adminPassword, sectorID: tenant.rootSectorID });
    // Tokens live in the page's memory, so screens are reached through links, never a reload.
    await page.getByRole('navigation', { name: /console/i }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await usersTable().getByRole('link', { name: target.email }).click();

    await page.getByRole('heading', { level: 1, name: target.name }).waitFor();
    expect(page.url()).toContain(`/console/sectors/${tenant.rootSectorID}/users/${sub}`);
    const profile = region('Profile');
    await profile.getByText(target.email).waitFor();
    await profile.getByText('Enabled', { exact: true }).first().waitFor();
    await profile.getByText(sub).waitFor();
    const factors = region('Sign-in factors');
    await factors.getByRole('table', { name: 'One-time-code factors' }).getByText('Authenticator app').waitFor();
    await factors.getByText('No passkeys.').waitFor();
    await region('Linked accounts').getByText(`frieda.${tag}@gmail.test`).waitFor();
    const sessions = region('Sessions').getByRole('table', { name: 'Sessions of this user' });
    await eventually(async () => (await sessions.getByRole('button', { name: /^Revoke the session/ }).count()) === 2, 10_000, 'the two sessions');
    await region('App access').getByText('No app has access.').waitFor();
    // Times are local dates, never raw Unix seconds.
    await expect(sessions.innerText()).resolves.not.toMatch(/\b1[6-9]\d{8}\b/);
    await checkScreen('user-page');
  });

  it('moves focus into the editor and back, and back to what opened a confirmation', async () => {
    const profile = region('Profile');
    const edit = profile.getByRole('button', { name: 'Edit profile' });
    await edit.click();
    const form = page.getByRole('form', { name: 'Profile' });
    await expect(isFocused(form.getByLabel('Full name'))).resolves.toBe(true);
    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'hidden' });
    await expect(isFocused(edit)).resolves.toBe(true);

    const revoke = region('Sessions').getByRole('button', { name: /^Revoke the session/ }).first();
    await revoke.click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this session?' });
    await dialog.waitFor();
    await expect(isFocused(dialog.getByRole('button', { name: 'Cancel' }))).resolves.toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect(isFocused(revoke)).resolves.toBe(true);
  });

  it('revokes one session: the API then lists one', async () => {
    const sessions = region('Sessions');
    await sessions.getByRole('button', { name: /^Revoke the session/ }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this session?' });
    expect({ screen: 'revoke-dialog', violations: await seriousViolations(page) }).toEqual({ screen: 'revoke-dialog', violations: [] });
    await dialog.getByRole('button', { name: 'Revoke session' }).click();
    await page.getByRole('status').filter({ hasText: /session of .* revoked/i }).first().waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await eventually(async () => (await sessions.getByRole('button', { name: /^Revoke the session/ }).count()) === 1, 10_000, 'one session listed');
    expect(await sessionsOf()).toHaveLength(1);
  });

  it('sends a password reset: the mail arrives', async () => {
    const actions = region('Actions');
    await actions.getByRole('button', { name: 'Send password reset' }).click();
    await page.getByRole('status').filter({ hasText: /password reset requested/i }).first().waitFor();
    const mail = await smtp.waitForMail((m) => m.to.includes(target.email), 15_000);
    expect(mail.text).toMatch(/token=[A-Za-z0-9_-]{20,}/);
    await expect(actions.getByRole('alert').count()).resolves.toBe(0);
  });

  it('fits a 390 px screen: the page and the Users list scroll no sideways, and a row action is clickable', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('heading', { level: 1, name: target.name }).waitFor();
    expect({ screen: 'user-page-390', ...(await pageWidth(page)) }).toEqual({ screen: 'user-page-390', overflow: false, wider: [] });
    await checkScreen('user-page-390');

    await main().getByRole('link', { name: 'All users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    // The rows are cards: a list of the users, each action a button in reach.
    const list = page.getByRole('list', { name: 'Users of this sector' });
    await list.getByRole('link', { name: target.email }).waitFor();
    expect({ screen: 'users-390', ...(await pageWidth(page)) }).toEqual({ screen: 'users-390', overflow: false, wider: [] });
    await checkScreen('user-page-list-390');
    const editButton = list.getByRole('button', { name: `Edit ${bystander}` });
    const box = await editButton.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    await editButton.click();
    const form = page.getByRole('form', { name: `Edit ${bystander}` });
    await expect(isFocused(form.getByLabel('Full name'))).resolves.toBe(true);
    await form.getByRole('button', { name: 'Cancel' }).click();
    await expect(isFocused(editButton)).resolves.toBe(true);

    // The other screens with tables fit too: API tokens (one token) and Webhooks.
    for (const [link, heading, name] of [
      ['API tokens', /tokens/i, 'tokens'],
      ['Webhooks', /webhooks/i, 'webhooks'],
    ] as const) {
      await page.getByRole('navigation', { name: /console/i }).getByRole('link', { name: link }).click();
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      if (name === 'tokens') await page.getByRole('list', { name: /tokens/i }).getByText(`ci-${tag}`).waitFor();
      expect({ screen: `${name}-390`, ...(await pageWidth(page)) }).toEqual({ screen: `${name}-390`, overflow: false, wider: [] });
      await page.screenshot({ path: join(SHOTS, `console-user-page-${name}-390.png`), fullPage: true, style: '.toasts { display: none !important; }' });
    }

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('navigation', { name: /console/i }).getByRole('link', { name: 'Users' }).click();
    await usersTable().getByRole('link', { name: target.email }).click();
    await page.getByRole('heading', { level: 1, name: target.name }).waitFor();
  });

  it('deletes the user after a confirmation and lands on the list', async () => {
    await region('Actions').getByRole('button', { name: 'Delete user' }).click();
    const dialog = page.getByRole('dialog', { name: `Delete ${target.email}?` });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Delete user' }).click();
    await page.getByRole('status').filter({ hasText: /deleted/i }).first().waitFor();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await usersTable().getByText(bystander).waitFor();
    await expect(usersTable().getByText(target.email).count()).resolves.toBe(0);
    expect((await t.http().get(`/api/v1/users/${sub}`).set(bearer(tenant.adminToken))).status).toBe(404);
  });
});
