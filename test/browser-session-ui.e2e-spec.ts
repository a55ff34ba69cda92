/**
 * Staying signed in across reloads (docs/adr/0048-browser-sessions.md), in a real
 * browser: Debian's chromium through playwright-core, against the real service
 * (serving the built console from dist/console) on a real PostgreSQL.
 *
 * - A platform admin signs in to /console; a reload keeps them signed in, and the
 *   session cookie is HttpOnly (not in `document.cookie`). Two tabs of one browser
 *   reloading at once both stay signed in: their refreshes take turns (Web Locks),
 *   so the service never sees one refresh token twice.
 * - A user of a sector that requires MFA signs in to /account with a password and a
 *   mailed one-time code; a reload keeps them signed in without the code again.
 * - Their session is revoked through the API while a form holds typed text: Save
 *   shows "Your session has ended" over the untouched form (checked with axe); a
 *   sign-in in another tab of the same browser closes the dialog, and Save works.
 * - Signing out ends the browser session: a reload lands on the sign-in page.
 * Screenshots go to test-artifacts/screenshots/browser-session-*.png.
 *
 * Needs the console built first (dist/console). If chromium cannot start, the spec fails.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeAll, checkAccessibleScreen, newConsolePage, requireConsoleBuild, signInToConsole, startBrowser } from './support/browser';
import { createSector, createUser, ProvisionedTenant, provisionTenant } from './support/factories';
import { codeIn, FAST_WORKER, MAIL_FROM, startSmtpServer, TestSmtpServer } from './support/smtp';
import { ADMIN_EMAIL, ADMIN_PASSWORD, NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';

jest.setTimeout(180_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');
const PASSWORD = 'browser-session-ui-password-1';

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;

describe('browser sessions in chromium: reloads stay signed in, an ended session keeps the screen', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let tenant: ProvisionedTenant;
  let mfaSector = '';
  let userSub = '';
  let userEmail = '';

  const auth = () => ({ Authorization: `Bearer ${tenant.adminToken}` });
  const consoleNav = (p: Page) => p.getByRole('navigation', { name: /console/i });
  const accountHeading = (p: Page) => p.getByRole('heading', { level: 1, name: 'Your account' });
  const sessionDialog = (p: Page) => p.getByRole('dialog', { name: 'Your session has ended' });
  /** Does the page's script see the session cookie? (It must not: HttpOnly.) */
  const scriptSeesCookie = (p: Page) => p.evaluate(() => (globalThis as any).document.cookie as string).then((c) => c.includes('iam_session'));

  /** Mail to the user received after `seen` earlier ones. */
  const mailAfter = (seen: number) => smtp.waitForMail((m) => m.envelopeTo.includes(userEmail) && smtp.find((x) => x.envelopeTo.includes(userEmail)).indexOf(m) >= seen);
  const mailsSoFar = () => smtp.find((m) => m.envelopeTo.includes(userEmail)).length;

  /** Signs the MFA user in on the account sign-in page: password, then the code mailed on request. */
  async function signInToAccount(p: Page): Promise<void> {
    await p.goto(`${t.baseUrl}/account/sign-in?sector=${mfaSector}`);
    await p.getByLabel('Username or email').fill(userEmail);
    await p.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.getByRole('heading', { name: 'Enter your one-time code' }).waitFor();
    const seen = mailsSoFar();
    await p.getByRole('button', { name: 'Send me a code' }).click();
    const code = codeIn((await mailAfter(seen)).text);
    await p.getByLabel('Code', { exact: true }).fill(code);
    await p.getByRole('button', { name: 'Verify' }).click();
    await accountHeading(p).waitFor();
  }

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    smtp = await startSmtpServer();
    t = await startTestApp({ env: { ...NO_THROTTLE, SMTP_URL: smtp.url, MAIL_FROM, ...FAST_WORKER } });
    tenant = await provisionTenant(t);
    mfaSector = await createSector(t, tenant.adminToken);
    userEmail = `kept-${randomBytes(4).toString('hex')}@example.test`;
    userSub = await createUser(t, tenant.adminToken, mfaSector, { email: userEmail, password: PASSWORD });
    // The user's email factor, enrolled by the admin with the mailed code; then the sector requires MFA.
    const seen = mailsSoFar();
    const reg = await t.http().post(`/api/v1/users/${userSub}/otp-registrations`).set(auth()).send({ type: 'email', destination: userEmail });
    expect(reg.status).toBe(200);
    const verified = await t
      .http()
      .post(`/api/v1/users/${userSub}/otp-registrations/${reg.body.registrationID}/verify`)
      .set(auth())
      .send({ code: codeIn((await mailAfter(seen)).text) });
    expect(verified.status).toBe(200);
    const settings = await t.http().put(`/api/v1/sectors/${mfaSector}/settings`).set(auth()).send({ MFARequired: true });
    expect(settings.status).toBe(200);
    browser = await startBrowser();
    ({ context, page } = await newConsolePage(browser, t.baseUrl));
  });

  afterAll(() => closeAll([context, browser], t, smtp));

  it('keeps a platform admin signed in to /console across reloads, in two tabs reloading at once', async () => {
    const refreshes: string[] = [];
    const countRefresh = (r: { url(): string }) => void (r.url().endsWith('/refresh') && refreshes.push(r.url()));
    page.on('request', countRefresh);
    await signInToConsole(page, t.baseUrl, { username: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    // The page does not refresh after its own sign-in (a reload during such a refresh would lose the rotated
    // cookie, and the service would end the session as reused).
    await page.waitForTimeout(500);
    page.off('request', countRefresh);
    expect(refreshes).toEqual([]);
    // The console shows itself once the session is in the cookie (the hand-over comes first).
    const platformSector = String(claimsOf(await t.platformToken()).sectorID);
    const sessionCookie = async () => (await context.cookies(`${t.baseUrl}/api/v1/browser-sessions/${platformSector}`)).filter((c) => c.name === 'iam_session');
    await eventually(async () => (await sessionCookie()).length > 0, 5_000, 'the session cookie after the sign-in');

    await page.reload();
    await consoleNav(page).waitFor();
    expect(new URL(page.url()).pathname).not.toMatch(/sign-in/);
    expect(await scriptSeesCookie(page)).toBe(false);
    expect(await sessionCookie()).toEqual([expect.objectContaining({ httpOnly: true, sameSite: 'Strict' })]);

    // A second tab of the same browser, on the same sector's session.
    const second = await context.newPage();
    second.setDefaultTimeout(15_000);
    try {
      await second.goto(`${t.baseUrl}/console?sector=${platformSector}`);
      await consoleNav(second).waitFor();
      for (let round = 0; round < 2; round++) {
        await Promise.all([page.reload(), second.reload()]);
        await Promise.all([consoleNav(page).waitFor(), consoleNav(second).waitFor()]);
      }
      expect(new URL(second.url()).pathname).not.toMatch(/sign-in/);
      // No reuse alarm: the session is still live, and one more reload still works.
      await page.reload();
      await consoleNav(page).waitFor();
    } finally {
      await second.close();
    }
    await page.getByRole('button', { name: /sign out/i }).click();
    await page.waitForURL(/\/sign-in/);
  });

  it('keeps an MFA user signed in to /account across a reload, without the code again', async () => {
    await signInToAccount(page);
    const seen = mailsSoFar();
    await page.reload();
    await accountHeading(page).waitFor();
    expect(new URL(page.url()).pathname).toBe('/account');
    expect(await scriptSeesCookie(page)).toBe(false);
    expect(mailsSoFar()).toBe(seen);
  });

  it('shows "Your session has ended" over the typed text when the session is revoked, and Save works after a sign-in in another tab', async () => {
    const typed = `Typed ${randomBytes(3).toString('hex')}`;
    const given = page.getByLabel('Given name');
    await given.fill(typed);

    const listed = await t.http().get(`/api/v1/users/${userSub}/sessions`).set(auth());
    expect(listed.status).toBe(200);
    for (const s of listed.body.sessions as Array<{ id: string }>) {
      expect((await t.http().delete(`/api/v1/users/${userSub}/sessions/${s.id}`).set(auth())).status).toBe(200);
    }

    await page.getByRole('button', { name: 'Save profile' }).click();
    await sessionDialog(page).waitFor();
    await sessionDialog(page).getByText('What you typed is kept. Sign in again to continue.').waitFor();
    await eventually(async () => page.evaluate(() => (globalThis as any).document.activeElement?.textContent === 'Sign in again'), 10_000, 'focus in the dialog');
    expect(await given.inputValue()).toBe(typed);
    expect(await accountHeading(page).isVisible()).toBe(true);
    await checkAccessibleScreen(page, 'browser-session-ended', SHOTS, { dark: false });

    // "Sign in again" opens the sector's sign-in page in a new tab.
    const [opened] = await Promise.all([context.waitForEvent('page'), sessionDialog(page).getByRole('button', { name: 'Sign in again' }).click()]);
    await opened.waitForLoadState();
    expect(new URL(opened.url()).pathname).toBe('/account/sign-in');
    expect(new URL(opened.url()).searchParams.get('sector')).toBe(mfaSector);
    opened.setDefaultTimeout(15_000);
    try {
      await signInToAccount(opened);
      await sessionDialog(page).waitFor({ state: 'hidden' });
      expect(await given.inputValue()).toBe(typed);
      await page.getByRole('button', { name: 'Save profile' }).click();
      await eventually(async () => {
        const res = await t.http().get(`/api/v1/users/${userSub}`).set(auth());
        return res.status === 200 && JSON.stringify(res.body).includes(typed);
      }, 10_000, 'the profile saved');
      expect(await sessionDialog(page).isVisible()).toBe(false);
    } finally {
      await opened.close();
    }
  });

  it('signs out: a reload lands on the sign-in page', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(/\/account\/sign-in/);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/account/sign-in');
    const cookies = await context.cookies(`${t.baseUrl}/api/v1/browser-sessions/${mfaSector}`);
    expect(cookies.filter((c) => c.name === 'iam_session')).toEqual([]);
  });
});
