/**
 * A tenant's sign-in journeys through its own addresses, in a real browser
 * (Debian's chromium through playwright-core) against the real service on real
 * PostgreSQL, serving the built SPA (dist/console), with a real SMTP server.
 * The service's PUBLIC_URL is the address the browser uses, so the links it
 * mails open straight in the tab.
 *
 * Set up through the API as the platform admin: a tenant (not the platform), in
 * it a sector `staff` that requires MFA (a user without a second factor enrolls
 * the email address with a mailed code) and allows sign-in links. Every journey
 * starts from a mail and ends on the signed-in account page, with the address
 * kept under `/t/{tenant}/staff/` all the way:
 * 1. a forgotten password: the sign-in page's "Forgot your password?", the mailed
 *    link, a new password, the emailed code; then the same link again is dead and
 *    offers "Ask for a new link", which stays in the sector and mails a new one;
 * 2. a mailed sign-in link ("Email link"), then the emailed code;
 * 3. an invitation made by an admin through the API: a password, the emailed code;
 *    the API then lists the user as accepted with a verified email factor, and a
 *    later sign-in with password and code works.
 * Then the platform's own `/console/sign-in`: `admin@{tenant}` signs a tenant
 * admin in to that tenant's console; a wrong password and an unknown user get
 * the same answer; the organization disclosure opens the tenant's sign-in page
 * (or says no organization has that name). `/t/{tenant}/console` signs the
 * tenant's first admin in; an address naming no sector says so.
 * The tenant's sign-in page and the link pages are checked with axe (no serious
 * or critical violation) in light and dark mode, and photographed to
 * test-artifacts/screenshots/tenant-journey-*.png.
 *
 * Needs the console built first (`npx vite build --config console/vite.config.ts`).
 * If chromium cannot start, the spec fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { closeAll, newConsolePage, requireConsoleBuild, seriousViolations, startBrowser } from './support/browser';
import { createSector, createUser, provisionTenant, ProvisionedTenant } from './support/factories';
import { freePort } from './support/global-setup';
import { codeIn, FAST_WORKER, MAIL_FROM, ReceivedMail, startSmtpServer, TestSmtpServer } from './support/smtp';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';

jest.setTimeout(180_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');
const PASSWORD = 'a long and lovely passphrase';
const NEW_PASSWORD = 'another fine passphrase';
const ADMIN_PASSWORD = 'the tenant admin passphrase';
const tag = randomBytes(3).toString('hex');

describe("a tenant's sign-in journeys through its own addresses, in chromium", () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let browser: Browser;
  let tenant: ProvisionedTenant;
  let origin: string;
  let staffID: string;
  let defaultSectorName: string;
  const contexts: BrowserContext[] = [];

  const admin = () => ({ Authorization: `Bearer ${tenant.adminToken}` });
  const staffBase = () => `${origin}/t/${tenant.slug}/staff`;
  /** The page's address is in the staff sector's pages. */
  const expectInStaff = (page: Page) => expect(page.url().startsWith(`${staffBase()}/`)).toBe(true);

  async function newPage(): Promise<Page> {
    const { context, page } = await newConsolePage(browser, origin);
    contexts.push(context);
    return page;
  }

  /** Asserts no serious axe violation on the page in light and dark mode, and photographs both. */
  async function checkScreen(page: Page, name: string): Promise<void> {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect({ screen: name, scheme, violations: await seriousViolations(page) }).toEqual({ screen: name, scheme, violations: [] });
      await page.screenshot({ path: join(SHOTS, `tenant-journey-${name}${scheme === 'dark' ? '-dark' : ''}.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: 'light' });
  }

  const mailsTo = (address: string) => smtp.find((m) => m.envelopeTo.includes(address));

  /** The next mail to `address` after the `seen` ones that matches `predicate`. */
  function nextMail(address: string, seen: ReceivedMail[], predicate: (mail: ReceivedMail) => boolean = () => true): Promise<ReceivedMail> {
    return eventually(() => mailsTo(address).find((m) => !seen.includes(m) && predicate(m)), 15_000, `a mail to ${address}`);
  }

  /** The link a mail carries (the one with a token). */
  function linkIn(mail: ReceivedMail): string {
    const link = /https?:\/\/[^\s<>"]+token=[^\s<>"]+/.exec(mail.text)?.[0]?.replace(/[).,]+$/, '');
    if (!link) throw new Error(`no link in ${JSON.stringify(mail.text)}`);
    return link;
  }

  /**
   * The sector requires MFA and the user has no second factor yet: the page asks to
   * enroll the email address with a mailed code. Completes that step.
   */
  async function enrollEmailFactor(page: Page, email: string, name: string): Promise<void> {
    await page.getByRole('heading', { name: 'Set up a second factor' }).waitFor();
    expectInStaff(page);
    await checkScreen(page, `${name}-mfa`);
    const seen = mailsTo(email);
    const field = page.getByLabel('Email address');
    if ((await field.inputValue()) === '') await field.fill(email);
    await page.getByRole('button', { name: 'Send the code' }).click();
    const code = codeIn((await nextMail(email, seen)).text);
    await page.getByLabel('Code', { exact: true }).fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
  }

  /** Waits for `locator`; a timeout names the page's address and text. */
  async function shows(page: Page, locator: Locator): Promise<void> {
    await locator.waitFor().catch(async (err: Error) => {
      throw new Error(`${err.message}\nthe browser is at ${page.url()} showing:\n${(await page.locator('body').innerText()).slice(0, 1200)}`);
    });
  }

  /** The signed-in account page of `username`, in the staff sector. */
  async function expectSignedIn(page: Page, username: string): Promise<void> {
    await page
      .getByRole('heading', { level: 1, name: 'Your account' })
      .waitFor()
      .catch(async (err: Error) => {
        throw new Error(`not signed in (at ${page.url()}): ${(await page.locator('body').innerText()).slice(0, 800)}\n${err.message}`);
      });
    expect(new URL(page.url()).pathname).toBe(`/t/${tenant.slug}/staff/account`);
    await page.locator('header').getByText(username, { exact: true }).waitFor();
  }

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    origin = `http://localhost:${port}`;
    smtp = await startSmtpServer();
    t = await startTestApp({ port, env: { PUBLIC_URL: origin, ...NO_THROTTLE, SMTP_URL: smtp.url, MAIL_FROM, ...FAST_WORKER } });
    tenant = await provisionTenant(t);
    staffID = await createSector(t, tenant.adminToken, 'staff', { domain: `staff-${tag}.example.com` });
    const settings = await t.http().put(`/api/v1/sectors/${staffID}/settings`).set(admin()).send({ MFARequired: true, MagicLinkLoginEnabled: true });
    expect({ status: settings.status, MFARequired: settings.body.MFARequired, MagicLinkLoginEnabled: settings.body.MagicLinkLoginEnabled }).toEqual({
      status: 200,
      MFARequired: true,
      MagicLinkLoginEnabled: true,
    });
    // A second admin of the tenant's default sector whose login name is `admin` (the first admin's is their email).
    await createUser(t, tenant.adminToken, tenant.rootSectorID, { email: `boss.${tag}@example.test`, username: 'admin', password: ADMIN_PASSWORD, isAdmin: true });
    const options = await t.http().get('/api/v1/sign-in-options').query({ tenant: tenant.slug });
    expect(options.status).toBe(200);
    defaultSectorName = options.body.sectorName as string;
    expect(defaultSectorName).not.toBe('');
    browser = await startBrowser();
  });

  afterAll(() => closeAll([...contexts, browser], t, smtp));

  it("serves the staff sector's sign-in page under its address, named after the sector", async () => {
    const page = await newPage();
    await page.goto(`${staffBase()}/account/sign-in`);
    await page.getByRole('heading', { level: 1, name: 'Sign in — Sector staff' }).waitFor();
    // Sign-in links are on in this sector: the page offers them.
    await page.getByRole('button', { name: 'Email link' }).waitFor();
    await checkScreen(page, 'sign-in');
  });

  it('a forgotten password: the mailed link, a new password and the emailed code sign the user in; the used link offers a new one that is mailed', async () => {
    const email = `rosa.${tag}@example.test`;
    const username = `rosa-${tag}`;
    await createUser(t, tenant.adminToken, staffID, { email, username, password: PASSWORD });
    const page = await newPage();
    await page.goto(`${staffBase()}/account/sign-in`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { level: 1, name: 'Reset your password' }).waitFor();
    expectInStaff(page);
    await checkScreen(page, 'forgot-password');
    const seen = mailsTo(email);
    await page.getByLabel('Email or username').fill(email);
    await page.getByRole('button', { name: 'Send me a link' }).click();
    await page.getByText('If an account matches').waitFor();
    const link = linkIn(await nextMail(email, seen, (m) => /type=password-reset/.test(m.text)));
    expect(link.startsWith(`${staffBase()}/reset-password?`)).toBe(true);
    expect(new URL(link).searchParams.get('type')).toBe('password-reset');

    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    await checkScreen(page, 'reset-password');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Save password and sign in' }).click();
    await enrollEmailFactor(page, email, 'reset-password');
    await expectSignedIn(page, username);

    // The same link again, in another browser: it is used up, and the page offers a new one in the same sector.
    const again = await newPage();
    await again.goto(link);
    await again.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    await again.getByLabel('New password', { exact: true }).fill('a third fine passphrase');
    await again.getByLabel('Repeat the new password').fill('a third fine passphrase');
    await again.getByRole('button', { name: 'Save password and sign in' }).click();
    const ask = again.getByRole('link', { name: 'Ask for a new link' });
    await ask.waitFor();
    await checkScreen(again, 'reset-password-dead');
    expect(await ask.getAttribute('href')).toMatch(new RegExp(`^/t/${tenant.slug}/staff/`));
    await ask.click();
    await again.getByRole('heading', { level: 1, name: 'Reset your password' }).waitFor();
    expectInStaff(again);
    const seenAgain = mailsTo(email);
    await again.getByLabel('Email or username').fill(email);
    await again.getByRole('button', { name: 'Send me a link' }).click();
    await again.getByText('If an account matches').waitFor();
    const fresh = linkIn(await nextMail(email, seenAgain, (m) => /type=password-reset/.test(m.text)));
    expect(fresh.startsWith(`${staffBase()}/reset-password?`)).toBe(true);
    expect(fresh).not.toBe(link);
  });

  it('a mailed sign-in link, then the emailed code, signs a new user in', async () => {
    const email = `milo.${tag}@example.test`;
    const username = `milo-${tag}`;
    await createUser(t, tenant.adminToken, staffID, { email, username, password: PASSWORD });
    const page = await newPage();
    await page.goto(`${staffBase()}/account/sign-in`);
    await page.getByRole('button', { name: 'Email link' }).click();
    const seen = mailsTo(email);
    await page.getByLabel('Email or username').fill(email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByText('If the account exists, a sign-in link is on its way.').waitFor();
    const link = linkIn(await nextMail(email, seen, (m) => /type=magic-link/.test(m.text)));
    expect(link.startsWith(`${staffBase()}/magic-link?`)).toBe(true);

    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Sign in with your link' }).waitFor();
    await checkScreen(page, 'magic-link');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await enrollEmailFactor(page, email, 'magic-link');
    await expectSignedIn(page, username);
  });

  it('an invitation from an admin: a password and the emailed code sign the user in; the API shows the invitation accepted and the factor verified', async () => {
    const email = `ines.${tag}@example.test`;
    const username = `ines-${tag}`;
    const seen = mailsTo(email);
    const sub = await createUser(t, tenant.adminToken, staffID, { email, username });
    const link = linkIn(await nextMail(email, seen));
    expect(link.startsWith(`${staffBase()}/invite?token=`)).toBe(true);

    const page = await newPage();
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Accept your invitation' }).waitFor();
    await checkScreen(page, 'invite');
    await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Repeat the new password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await enrollEmailFactor(page, email, 'invite');
    await expectSignedIn(page, username);

    const listed = await t.http().get(`/api/v1/sectors/${staffID}/users`).set(admin()).query({ searchTerm: username });
    expect(listed.status).toBe(200);
    expect(listed.body.users).toEqual([expect.objectContaining({ sub, email, emailVerified: true, inviteStatus: 'active' })]);
    const factors = await t.http().get(`/api/v1/users/${sub}/otp-registrations`).set(admin());
    expect({ status: factors.status, body: factors.body }).toEqual({
      status: 200,
      body: { registrations: [expect.objectContaining({ type: 'email', verified: true })] },
    });

    // A later sign-in: the password, then a code mailed to the enrolled address.
    const first = await t.http().post('/api/v1/login/password').send({ username, password: PASSWORD, sectorID: staffID });
    expect({ status: first.status, state: first.body.status }).toEqual({ status: 200, state: 'MFA_REQUIRED' });
    const seenCode = mailsTo(email);
    const sent = await t.http().post('/api/v1/login/otp/begin').send({ transactionID: first.body.transactionID, sectorID: staffID });
    expect(sent.status).toBe(200);
    const code = codeIn((await nextMail(email, seenCode)).text);
    const done = await t.http().post('/api/v1/login/otp').send({ transactionID: first.body.transactionID, password: code, sectorID: staffID });
    expect({ status: done.status, state: done.body.status, token: typeof done.body.token }).toEqual({ status: 200, state: 'SUCCESS', token: 'string' });
  });

  describe("the platform's own sign-in page", () => {
    /** Signs in on `/console/sign-in` with a login name; answers the status of the password step. */
    async function signInAs(page: Page, login: string, password: string): Promise<number> {
      await page.goto(`${origin}/console/sign-in`);
      await page.getByLabel('Username or email').fill(login);
      await page.getByLabel('Password', { exact: true }).fill(password);
      const answered = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/v1/login/password');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      return (await answered).status();
    }

    it("`admin@{tenant}` signs a tenant admin in to the tenant's console", async () => {
      const page = await newPage();
      expect(await signInAs(page, `admin@${tenant.slug}`, ADMIN_PASSWORD)).toBe(200);
      const nav = page.getByRole('navigation', { name: 'Console' });
      await nav.waitFor();
      await page.locator('.admin-header__user').getByText('admin', { exact: true }).waitFor();
      await nav.getByRole('link', { name: 'Sectors', exact: true }).click();
      const table = page.getByRole('table', { name: 'Sectors of this tenant' });
      // The tenant's two sectors: its default one (marked so) and staff.
      await shows(page, table.getByRole('row').filter({ hasText: 'Sector staff' }).getByRole('cell', { name: 'staff', exact: true }));
      await shows(page, table.getByRole('row').filter({ hasText: defaultSectorName }).getByText('default', { exact: true }));
      await expect(table.getByRole('row').count()).resolves.toBe(3);
    });

    it('answers a wrong password exactly like an unknown user of the tenant', async () => {
      const answers: Array<{ status: number; message: string }> = [];
      for (const [login, password] of [
        [`admin@${tenant.slug}`, 'not the password'],
        [`nobody@${tenant.slug}`, ADMIN_PASSWORD],
      ]) {
        const page = await newPage();
        const status = await signInAs(page, login, password);
        const message = (await page.getByRole('alert').locator('p').first().innerText()).trim();
        answers.push({ status, message });
      }
      expect(answers).toEqual([
        { status: 401, message: 'The username or password is incorrect.' },
        { status: 401, message: 'The username or password is incorrect.' },
      ]);
    });

    it('`{username}@{tenant}/{sector}` on the plain account sign-in finds a sector of the tenant: its second-factor step follows', async () => {
      const email = `sam.${tag}@example.test`;
      const password = `sam-${tag}-password`;
      await createUser(t, tenant.adminToken, staffID, { email, username: `sam-${tag}`, password });
      const page = await newPage();
      await page.goto(`${origin}/account/sign-in`);
      await page.getByLabel('Username or email').fill(`sam-${tag}@${tenant.slug}/staff`);
      await page.getByLabel('Password', { exact: true }).fill(password);
      const answered = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/v1/login/password');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const res = await answered;
      expect({ status: res.status(), sectorID: res.request().postDataJSON().sectorID, username: res.request().postDataJSON().username }).toEqual({
        status: 200,
        sectorID: staffID,
        username: `sam-${tag}`,
      });
      // The staff sector requires MFA and Sam has no second factor yet.
      await shows(page, page.getByRole('heading', { name: 'Set up a second factor' }));
    });

    it("the organization disclosure opens the tenant's sign-in page, or says no organization has the name", async () => {
      const page = await newPage();
      await page.goto(`${origin}/console/sign-in`);
      await page.getByText('Go to your organization’s sign-in page').click();
      await page.getByLabel('Organization').fill(`no-such-org-${tag}`);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByText('No organization has this name', { exact: false }).waitFor();
      expect(await page.getByLabel('Organization').getAttribute('aria-invalid')).toBe('true');
      await page.getByLabel('Organization').fill(tenant.slug);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(`${origin}/t/${tenant.slug}/console/sign-in`);
      await page.getByRole('heading', { level: 1, name: `Sign in to the console — ${defaultSectorName}` }).waitFor();
      // A sector of the tenant by its slug: that sector's own sign-in page.
      await page.goto(`${origin}/account/sign-in`);
      await page.getByText('Go to your organization’s sign-in page').click();
      await page.getByLabel('Organization').fill(`${tenant.slug}/staff`);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(`${staffBase()}/account/sign-in`);
    });
  });

  it("`/t/{tenant}/console` signs the tenant's first admin in to their own console", async () => {
    const page = await newPage();
    // The sector's sign-in options, read once per page load: the address gate, the session restore,
    // the sign-in page, the admin's roles and the console's header share one answer.
    const optionReads: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/v1/sign-in-options') optionReads.push(request.url());
    });
    await page.goto(`${origin}/t/${tenant.slug}/console`);
    await page.getByRole('heading', { level: 1, name: `Sign in to the console — ${defaultSectorName}` }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/t/${tenant.slug}/console/sign-in`);
    await page.getByLabel('Username or email').fill(tenant.adminEmail);
    await page.getByLabel('Password', { exact: true }).fill(tenant.adminPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
    await page.locator('.admin-header__user').getByText(tenant.adminEmail, { exact: true }).waitFor();
    expect(new URL(page.url()).pathname.startsWith(`/t/${tenant.slug}/console`)).toBe(true);
    await page.waitForLoadState('networkidle');
    expect(optionReads).toEqual([expect.stringContaining(`tenant=${tenant.slug}`)]);

    // A fresh load of the console page, the session restored from its cookie: one read again.
    optionReads.length = 0;
    await page.reload();
    await page.locator('.admin-header__user').getByText(tenant.adminEmail, { exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(optionReads).toEqual([expect.stringContaining(`tenant=${tenant.slug}`)]);
  });

  it('an address naming no sector of the tenant says there is no sign-in page there', async () => {
    const page = await newPage();
    await page.goto(`${origin}/t/${tenant.slug}/no-such-sector/account`);
    await shows(page, page.getByRole('heading', { level: 1, name: 'There is no sign-in page here' }));
    await checkScreen(page, 'no-sector');
  });
});
