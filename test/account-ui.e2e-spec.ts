/**
 * The account page in a real browser (issue 13): Debian's chromium through
 * playwright-core, against the real service on real PostgreSQL, serving the SPA
 * built by `npm run build` (dist/console). Set up through the API: a tenant, a
 * sector whose passkey relying party is `localhost` with the app's origin and
 * whose MagicLinkURL points at the SPA's `/account/link`, and an invited user.
 * The user accepts the invitation from the mail (the test SMTP server), lands
 * on the account page, enrolls an authenticator app from the QR code's secret
 * (codes computed with otplib), registers a passkey with the DevTools virtual
 * authenticator, signs out other sessions, signs out and signs in with the
 * passkey alone (through the username field's autofill), then on another device
 * with password + one-time code and password + passkey. Another user resets a
 * forgotten password through the mailed link. axe-core checks every screen (no
 * serious or critical violation), one pass at 360 px, one in dark mode, and
 * screenshots land in test-artifacts/screenshots/.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { PasskeyPage, startBrowser } from './support/browser';
import { createSector, createUser, provisionTenant, ProvisionedTenant } from './support/factories';
import { FAST_WORKER, MAIL_FROM, startSmtpServer, TestSmtpServer } from './support/smtp';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

type Otplib = typeof import('otplib', { with: { 'resolution-mode': 'import' } });

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');
const PASSWORD = 'a long and lovely passphrase';
const tag = randomBytes(3).toString('hex');
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

jest.setTimeout(240_000);

/** Progress notes for a slow or stuck run: ACCOUNT_UI_TRACE=<file>. */
function trace(note: string): void {
  if (process.env.ACCOUNT_UI_TRACE) appendFileSync(process.env.ACCOUNT_UI_TRACE, `${new Date().toISOString()} ${note}\n`);
}

/** Runs axe-core in the page (evaluated over DevTools, so the page's CSP stays as served) and answers the serious/critical violations. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const r = await axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n: any) => n.target.join(' ')).slice(0, 3) }));
  });
  return (result as Array<{ id: string; impact: string; nodes: string[] }>)
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.join(', ')}`);
}

/** Waits until `read()` satisfies `ok` (the page updates after the API answers). */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function shot(page: Page, name: string): Promise<void> {
  trace(`screenshot ${name}`);
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

describe('account page in chromium', () => {
  let smtp: TestSmtpServer;
  let browser: Browser;
  let t: TestApp;
  let a: ProvisionedTenant;
  let origin: string;
  let S: string;
  let passkey: PasskeyPage;
  let page: Page;
  let otplib: Otplib;
  let totpSecret = '';
  let lastTotpStep = 0;
  const email = `ana.${tag}@example.test`;
  const cspErrors: string[] = [];

  /** A TOTP code of a step not used yet (each step is accepted once; one step of drift is allowed). */
  async function nextTotp(): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    let step = Math.floor(now / 30);
    if (step <= lastTotpStep) step = lastTotpStep + 1;
    if (step > Math.floor(now / 30) + 1) {
      await new Promise((resolve) => setTimeout(resolve, ((step - 1) * 30 - now + 1) * 1000));
    }
    lastTotpStep = step;
    return otplib.generate({ secret: totpSecret, epoch: step * 30 });
  }

  const accountHeading = () => page.getByRole('heading', { level: 1, name: 'Your account' });

  beforeAll(async () => {
    trace('beforeAll');
    mkdirSync(SHOTS, { recursive: true });
    otplib = await import('otplib');
    smtp = await startSmtpServer();
    browser = await startBrowser();
    t = await startTestApp({ env: { ...NO_THROTTLE, SMTP_URL: smtp.url, MAIL_FROM, ...FAST_WORKER } });
    origin = `http://localhost:${new URL(t.baseUrl).port}`;
    a = await provisionTenant(t);
    S = await createSector(t, a.adminToken, undefined, { domain: 'localhost', allowedOrigins: [origin] });
    const settings = await t
      .http()
      .put(`/api/v1/sectors/${S}/settings`)
      .set('Authorization', `Bearer ${a.adminToken}`)
      .send({ MagicLinkURL: `${origin}/account/link?sector=${S}` });
    expect(settings.status).toBe(200);
    trace('app up');
    passkey = await PasskeyPage.open(browser, origin);
    trace('browser up');
    page = passkey.page;
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
    });
  });

  afterAll(async () => {
    await passkey?.close();
    await browser?.close();
    await t?.close();
    await smtp?.stop();
  });

  it('serves the SPA at /console and /account (deep links too), at the default mail-link pages, and its hashed assets with a long cache', async () => {
    for (const path of ['/console', '/console/sectors/x/users', '/account', '/account/sign-in', '/invite?token=x', '/reset-password?token=x&type=password-reset', '/magic-link', '/verify-email']) {
      const res = await t.http().get(path);
      expect({ path, status: res.status, type: res.headers['content-type'], cache: res.headers['cache-control'] }).toEqual({
        path,
        status: 200,
        type: 'text/html; charset=utf-8',
        cache: 'no-cache',
      });
      expect(res.text).toContain('<div id="root"></div>');
    }
    const html = (await t.http().get('/account')).text;
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await t.http().get(script!);
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-security-policy']).toContain("script-src 'self'");
    const missing = await t.http().get('/console/assets/nope.js');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe(5);
    expect((await t.http().get('/console/assets/..%2F..%2Fpackage.json')).status).toBe(404);
    // The API is untouched.
    expect((await t.http().get('/api/v1/nope')).body.details[0].reason).toBe('ROUTE_NOT_FOUND');
  });

  it('an invited user accepts the invitation from the mail on the SPA and lands on the account page', async () => {
    await createUser(t, a.adminToken, S, { email, profile: { name: 'Ana Example' } });
    const mail = await smtp.waitForMail((m) => m.envelopeTo.includes(email));
    const link = /https?:\/\/\S+/.exec(mail.text)?.[0]?.replace(/[).,]+$/, '');
    expect(link).toMatch(new RegExp(`^${origin}/account/link\\?sector=${S}&token=`));

    await page.goto(link!);
    await page.getByRole('heading', { level: 1, name: 'Accept your invitation' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'account-invitation');
    await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Repeat the new password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await accountHeading().waitFor();
    expect(new URL(page.url()).pathname).toBe('/account');
    // The profile shows the user's data from the API; the email was verified by accepting.
    await expect(page.getByLabel('Full name').inputValue()).resolves.toBe('Ana Example');
    await expect(page.getByLabel('Email address', { exact: true }).inputValue()).resolves.toBe(email);
  });

  it('edits the profile (PUT merge) and shows a field violation in words next to its input', async () => {
    await page.getByLabel('Website').fill('not a url');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('must be an http(s) URL or empty', { exact: true }).waitFor();
    expect(await page.getByLabel('Website').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Website').fill('https://ana.example.test');
    await page.getByLabel('Nickname').fill('ana');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    const sub = (await t.http().get(`/api/v1/sectors/${S}/users`).set('Authorization', `Bearer ${a.adminToken}`).query({ searchTerm: email })).body.users[0].sub;
    const stored = await t.http().get(`/api/v1/users/${sub}`).set('Authorization', `Bearer ${a.adminToken}`);
    expect(stored.body).toMatchObject({ website: 'https://ana.example.test', nickname: 'ana', name: 'Ana Example', email });
  });

  it('lists the sessions and signs out the other ones', async () => {
    // A second session, from another client.
    await t.login(email, PASSWORD, S);
    // A reload keeps the session (its refresh token is in an HttpOnly cookie); signing out ends it.
    await page.reload();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).searchParams.get('sector')).toBe(S);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'account-sign-in');
    await page.getByLabel('Username or email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await accountHeading().waitFor();
    const sessions = page.getByRole('list', { name: 'Your sessions' }).getByRole('listitem');
    expect(await until(() => sessions.count(), (n) => n >= 2)).toBeGreaterThanOrEqual(2);
    await page.getByText('This session').waitFor();
    await page.getByRole('button', { name: 'Sign out all other sessions' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign out all other sessions?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Sign out' }).click();
    expect(await until(() => sessions.count(), (n) => n === 1)).toBe(1);
  });

  it('enrolls an authenticator app from the QR code and its secret', async () => {
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    totpSecret = (await page.getByTestId('totp-secret').textContent())!.trim();
    expect(totpSecret).toMatch(/^[A-Z2-7]+=*$/);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'account-totp');
    await page.getByLabel('Verification code').fill(await nextTotp());
    await page.getByRole('button', { name: 'Confirm' }).click();
    const factors = page.getByRole('list', { name: 'Your one-time-code factors' });
    await factors.getByText('Active').waitFor();
    await expect(factors.getByText('Authenticator app').count()).resolves.toBe(1);
  });

  it('registers, renames and lists a passkey made by the virtual authenticator', async () => {
    await page.getByLabel('Passkey name').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const passkeys = page.getByRole('list', { name: 'Your passkeys' });
    await passkeys.getByText('Test laptop').waitFor();
    expect(await passkey.storedCredentials()).toHaveLength(1);
    await page.getByRole('button', { name: 'Rename Test laptop' }).click();
    await page.getByLabel('New name for “Test laptop”').fill('Chromium passkey');
    await page.getByRole('button', { name: 'Save name' }).click();
    await passkeys.getByText('Chromium passkey').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'account-page');
  });

  it('works at 360 px wide and in dark mode', async () => {
    await page.setViewportSize({ width: 360, height: 800 });
    await accountHeading().waitFor();
    const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
    expect(overflow).toBeLessThanOrEqual(360);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'account-360');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'account-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('signs out, then signs in with the passkey alone (usernameless, offered in the username field where the browser supports it)', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    const autofill = await page.evaluate(async () => {
      const pkc = (globalThis as any).PublicKeyCredential;
      return typeof pkc?.isConditionalMediationAvailable === 'function' && (await pkc.isConditionalMediationAvailable()) === true;
    });
    trace(`conditional mediation: ${autofill}`);
    if (autofill) {
      // The sign-in page asks for a passkey through the username field's autofill;
      // the virtual authenticator answers it at once, so the page signs in by itself.
      await accountHeading().waitFor();
    } else {
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await accountHeading().waitFor();
    }
    await page.getByRole('list', { name: 'Your passkeys' }).getByText('Chromium passkey').waitFor();
  });

  it('on another device: password, then a one-time code instead of the passkey; later password, then the passkey', async () => {
    const other = await PasskeyPage.open(browser, origin);
    try {
      const p = other.page;
      p.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
      });
      const signInWithPassword = async () => {
        await p.goto(`${origin}/account/sign-in?sector=${S}`);
        await p.getByLabel('Username or email').fill(email);
        await p.getByLabel('Password', { exact: true }).fill(PASSWORD);
        await p.getByRole('button', { name: 'Sign in', exact: true }).click();
        await p.getByRole('heading', { name: 'Confirm with your passkey' }).waitFor();
      };
      // This device is a phone: 360 px wide.
      await p.setViewportSize({ width: 360, height: 740 });
      await p.goto(`${origin}/account/sign-in?sector=${S}`);
      await p.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      expect(await p.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)).toBeLessThanOrEqual(360);
      expect(await axeViolations(p)).toEqual([]);
      await shot(p, 'account-sign-in-360');
      await signInWithPassword();
      expect(await axeViolations(p)).toEqual([]);
      await shot(p, 'account-sign-in-mfa');
      await p.getByRole('button', { name: 'Use a one-time code instead' }).click();
      await p.getByLabel('Code', { exact: true }).fill(await nextTotp());
      await p.getByRole('button', { name: 'Verify' }).click();
      await p.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
      await p.getByRole('button', { name: 'Sign out', exact: true }).click();

      // This device gets the passkey now (copied from the first one's authenticator), after the page started.
      await signInWithPassword();
      await other.addCredentials(await passkey.storedCredentials());
      await p.getByRole('button', { name: 'Use my passkey' }).click();
      await p.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
      expect(cspErrors).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('a forgotten password: the link from the mail opens the SPA, the new password signs the user in', async () => {
    const bo = `bo.${tag}@example.test`;
    await createUser(t, a.adminToken, S, { email: bo, password: PASSWORD, profile: { name: 'Bo Example' } });
    const context = await browser.newContext();
    try {
      const p = await context.newPage();
      await p.goto(`${origin}/account/sign-in?sector=${S}`);
      await p.getByRole('link', { name: 'Forgot your password?' }).click();
      await p.getByRole('heading', { level: 1, name: 'Reset your password' }).waitFor();
      await p.getByLabel('Email or username').fill(bo);
      await p.getByRole('button', { name: 'Send me a link' }).click();
      await p.getByText('If an account matches').waitFor();
      expect(await axeViolations(p)).toEqual([]);
      const mail = await smtp.waitForMail((m) => m.envelopeTo.includes(bo) && /type=password-reset/.test(m.text));
      const link = /https?:\/\/\S+type=password-reset/.exec(mail.text)?.[0];
      expect(link).toMatch(new RegExp(`^${origin}/account/link\\?sector=${S}&token=`));
      await p.goto(link!);
      await p.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
      await p.getByLabel('New password', { exact: true }).fill('another fine passphrase');
      await p.getByLabel('Repeat the new password').fill('another fine passphrase');
      await p.getByRole('button', { name: 'Save password and sign in' }).click();
      await p.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
      await expect(p.getByLabel('Full name').inputValue()).resolves.toBe('Bo Example');
      await t.login(bo, 'another fine passphrase', S);
    } finally {
      await context.close();
    }
  });
});
