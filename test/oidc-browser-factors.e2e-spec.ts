/**
 * Signing in to an app through the OpenID Provider in a real browser (Debian's
 * chromium through playwright-core) with more than a password. `openid-client` is
 * the app: a first-party client registered by the tenant's admin (so no consent
 * step), the authorization code flow with PKCE (S256), state and nonce; a tiny
 * `node:http` server on 127.0.0.1 is its redirect URI. The service runs with
 * PUBLIC_URL on `localhost`, so the provider's sign-in page
 * (`/api/v1/oidc/interactions/{id}`) is a secure context whose origin is the
 * sector's passkey relying party (RP ID `localhost`).
 *
 * - A user with a verified authenticator app (TOTP, enrolled through the API):
 *   the page asks for the one-time code after the password (no serious axe
 *   violation on that step); the code reaches the app, and the ID token's `amr`
 *   says `pwd`, `otp` and `mfa`.
 * - A user with a passkey in the DevTools virtual authenticator (registered
 *   through the API, the credential made by the browser): the page signs in with
 *   the passkey alone (through the username field's autofill where the browser
 *   offers it, else "Sign in with a passkey"); the ID token's `amr` says `hwk` and
 *   `mfa`, not `pwd`.
 * - A user who asks the page for a mailed sign-in link (the test SMTP server gets
 *   it): the link carries the request; opened in the same browser, its page signs
 *   in and hands the sign-in back to the request's page, which finishes it; the ID
 *   token's `amr` says `otp`.
 *
 * Needs the console built first (`npx vite build --config console/vite.config.ts`).
 * If chromium cannot start, the spec fails.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeAll, PasskeyPage, requireConsoleBuild, seriousViolations, startBrowser } from './support/browser';
import { claimsOf } from './support/contract';
import { createSector, createUser, ProvisionedTenant, provisionTenant, uniqueSlug } from './support/factories';
import { freePort } from './support/global-setup';
import { FAST_WORKER, MAIL_FROM, startSmtpServer, TestSmtpServer } from './support/smtp';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { serveRedirectTarget, RedirectTarget } from './support/redirect-target';
import { eventually, sleep } from './support/wait';

jest.setTimeout(120_000);

const PASSWORD = 'a long and lovely passphrase';
const CLIENT_NAME = 'Factors App';

const dynamicImport = (name: string): Promise<any> => import(name);

/**
 * Logs the provider's and the interaction API's answers (named when a step fails), and
 * every address the tab's main frame visits.
 */
function watch(page: Page): { log: string[]; visited: string[] } {
  const log: string[] = [];
  const visited: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) visited.push(frame.url());
  });
  page.on('response', (res) => {
    const url = res.url();
    if (url.includes('/oidc/') || url.includes('/api/v1/login/') || url.includes('/api/v1/webauthn/')) {
      const req = res.request();
      void res
        .text()
        .catch(() => '')
        .then((body) => log.push(`${req.method()} ${url} -> ${res.status()} ${res.headers()['location'] ?? ''} ${body.slice(0, 300)}`));
    }
  });
  return { log, visited };
}

describe('OpenID Provider sign-in page in chromium: MFA, passkeys and mailed links', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let oc: any;
  let otplib: any;
  let browser: Browser;
  let app: RedirectTarget;
  let tenant: ProvisionedTenant;
  let sectorID: string;
  let origin: string;
  let issuer: string;
  let clientId: string;
  let clientSecret: string;
  const contexts: BrowserContext[] = [];
  const passkeyPages: PasskeyPage[] = [];

  /** Polls `check` until it answers true (or fails after `timeoutMs`, describing the page and the log). */
  async function waitUntil(check: () => boolean | Promise<boolean>, what: string, page: Page, log: string[], timeoutMs = 20_000): Promise<void> {
    await eventually(check, timeoutMs, what).catch(async (err: Error) => {
      const text = await page.locator('body').innerText().catch(() => '(no page text)');
      throw new Error(`${err.message}; the browser is at ${page.url()} showing:\n${text.slice(0, 1200)}\nlog:\n${log.join('\n')}`);
    });
  }

  /** A new authorization request as openid-client builds it (PKCE S256, state, nonce; scope `openid email`). */
  async function authorizationRequest() {
    const config = await oc.discovery(new URL(issuer), clientId, clientSecret, oc.ClientSecretBasic(clientSecret), { execute: [oc.allowInsecureRequests] });
    const pkceCodeVerifier: string = oc.randomPKCECodeVerifier();
    const state: string = oc.randomState();
    const nonce: string = oc.randomNonce();
    const url: URL = oc.buildAuthorizationUrl(config, {
      redirect_uri: app.url,
      scope: 'openid email',
      code_challenge: await oc.calculatePKCECodeChallenge(pkceCodeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { config, url, pkceCodeVerifier, state, nonce };
  }

  type AuthorizationRequest = Awaited<ReturnType<typeof authorizationRequest>>;

  /** Waits for the redirect URI's answer after `before`, checks it and exchanges its code; answers the ID token's claims. */
  async function redeem(request: AuthorizationRequest, before: number, page: Page, log: string[]): Promise<Record<string, any>> {
    await waitUntil(() => app.received.length > before, 'the redirect URI to receive the answer', page, log);
    const received = app.received[app.received.length - 1];
    expect({ error: received.searchParams.get('error'), description: received.searchParams.get('error_description') }).toEqual({ error: null, description: null });
    expect(received.searchParams.get('code')).toEqual(expect.any(String));
    expect(received.searchParams.get('state')).toBe(request.state);
    expect(received.searchParams.get('iss')).toBe(issuer);
    await page.waitForURL((url) => url.href.startsWith(app.url));
    const tokens = await oc.authorizationCodeGrant(request.config, new URL(received.href), {
      pkceCodeVerifier: request.pkceCodeVerifier,
      expectedState: request.state,
      expectedNonce: request.nonce,
    });
    // The ID token as sent, and as openid-client validated it (signature, iss, aud, nonce).
    expect(claimsOf(tokens.id_token).sub).toBe(tokens.claims().sub);
    return tokens.claims() as Record<string, any>;
  }

  /** The browser went through the provider's sign-in page for this sector, on the service's `localhost` origin. */
  function expectInteractionVisited(visited: string[]): void {
    const interaction = visited.map((u) => new URL(u)).find((u) => u.pathname.startsWith('/api/v1/oidc/interactions/'));
    expect(interaction?.origin).toBe(origin);
    expect(interaction?.searchParams.get('interaction')).toBe(decodeURIComponent(interaction?.pathname.split('/').pop() ?? ''));
    expect(interaction?.searchParams.get('sector')).toBe(sectorID);
  }

  beforeAll(async () => {
    requireConsoleBuild();
    oc = await dynamicImport('openid-client');
    otplib = await dynamicImport('otplib');
    const port = await freePort();
    // `localhost`, not 127.0.0.1: the sign-in page's origin must sit on the passkey RP ID (a host name).
    origin = `http://localhost:${port}`;
    smtp = await startSmtpServer();
    t = await startTestApp({ port, env: { PUBLIC_URL: origin, ...NO_THROTTLE, SMTP_URL: smtp.url, MAIL_FROM, ...FAST_WORKER } });
    app = await serveRedirectTarget();
    tenant = await provisionTenant(t);
    const slug = uniqueSlug('s');
    sectorID = await createSector(t, tenant.adminToken, slug, { domain: 'localhost', allowedOrigins: [origin] });
    const settings = await t
      .http()
      .put(`/api/v1/sectors/${sectorID}/settings`)
      .set('Authorization', `Bearer ${tenant.adminToken}`)
      .send({ WebAuthnRPID: 'localhost', WebAuthnRPOrigins: [origin], WebAuthnRPDisplayName: 'Factors Shop', MagicLinkLoginEnabled: true });
    if (settings.status !== 200) throw new Error(`configuring passkeys failed: ${settings.status} ${JSON.stringify(settings.body)}`);
    issuer = `${origin}/oidc/${tenant.slug}/${slug}`;

    // A first-party app, registered by the admin: its users are not asked for consent.
    const reg = await t
      .http()
      .post(`/api/v1/sectors/${sectorID}/oidc/clients`)
      .set('Authorization', `Bearer ${tenant.adminToken}`)
      .send({ clientName: CLIENT_NAME, redirectURIs: [app.url], grantTypes: ['authorization_code'] });
    if (reg.status !== 200 && reg.status !== 201) throw new Error(`registering the client failed: ${reg.status} ${JSON.stringify(reg.body)}`);
    expect(reg.body.client.firstParty).toBe(true);
    ({ clientSecret } = reg.body);
    clientId = reg.body.client.clientID;
    browser = await startBrowser();
  });

  afterAll(() => closeAll([...passkeyPages, ...contexts, browser], app, t, smtp));

  it('password, then the one-time code of an authenticator app: the app gets a code and an ID token with amr pwd, otp, mfa', async () => {
    const username = `tess-${uniqueSlug('u')}`;
    const email = `${username}@factors.test`;
    const sub = await createUser(t, tenant.adminToken, sectorID, { username, email, password: PASSWORD, profile: { emailVerified: true } });
    const userToken = await t.login(username, PASSWORD, sectorID);
    const created = await t.http().post(`/api/v1/users/${sub}/otp-registrations`).set('Authorization', `Bearer ${tenant.adminToken}`).send({ type: 'totp' });
    expect(created.status).toBe(200);
    const secret = created.body.secret as string;
    // Each step is accepted once: a code of the previous step verifies the factor (not too close to the
    // step's end, so it is still within the allowed drift), and the sign-in uses a later one.
    const left = 30 - ((Date.now() / 1000) % 30);
    if (left < 5) await sleep(left * 1000 + 300);
    const verifiedStep = Math.floor(Date.now() / 1000 / 30) - 1;
    const verified = await t
      .http()
      .post(`/api/v1/users/${sub}/otp-registrations/${created.body.registrationID}/verify`)
      .set('Authorization', `Bearer ${userToken}`)
      .send({ code: await otplib.generate({ secret, epoch: verifiedStep * 30 }) });
    expect({ status: verified.status, body: verified.body }).toEqual({ status: 200, body: expect.anything() });

    const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const { log, visited } = watch(page);
    const request = await authorizationRequest();
    const before = app.received.length;
    await page.goto(request.url.href);
    await page.getByRole('heading', { level: 1, name: `Sign in to continue to ${CLIENT_NAME}` }).waitFor();
    expectInteractionVisited(visited);

    await page.getByLabel('Username or email').fill(username);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    // The second factor, on the same page, for the same request.
    await page.getByRole('heading', { name: 'Enter your one-time code' }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/api\/v1\/oidc\/interactions\//);
    expect(await seriousViolations(page)).toEqual([]);
    expect(app.received.length).toBe(before);

    const step = Math.max(Math.floor(Date.now() / 1000 / 30), verifiedStep + 1);
    await page.getByLabel('Code', { exact: true }).fill(await otplib.generate({ secret, epoch: step * 30 }));
    await page.getByRole('button', { name: 'Verify' }).click();

    const claims = await redeem(request, before, page, log);
    expect(claims).toMatchObject({ sub, email, iss: issuer, aud: clientId, nonce: request.nonce });
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    expect(claims.amr).not.toContain('hwk');
  });

  it('a passkey alone, from the virtual authenticator: the app gets a code and an ID token with amr hwk, mfa and no pwd', async () => {
    const username = `pia-${uniqueSlug('u')}`;
    const email = `${username}@factors.test`;
    const sub = await createUser(t, tenant.adminToken, sectorID, { username, email, password: PASSWORD, profile: { emailVerified: true } });
    const userToken = await t.login(username, PASSWORD, sectorID);

    // The passkey: the service's registration options, the credential made by this tab's virtual authenticator on the service's origin.
    const passkey = await PasskeyPage.open(browser, origin);
    passkeyPages.push(passkey);
    const page = passkey.page;
    page.setDefaultTimeout(15_000);
    const begin = await t.http().post('/api/v1/webauthn/registration/begin').set('Authorization', `Bearer ${userToken}`).send({ keyName: 'Chromium passkey' });
    expect(begin.status).toBe(200);
    const credential = await passkey.create(begin.body.options);
    const finish = await t
      .http()
      .post('/api/v1/webauthn/registration/finish')
      .set('Authorization', `Bearer ${userToken}`)
      .send({ ...credential, transactionID: begin.body.transactionID });
    expect({ status: finish.status, body: finish.body }).toEqual({ status: 200, body: { sub, type: 'public-key' } });
    expect(await passkey.storedCredentials()).toEqual([expect.objectContaining({ isResidentCredential: true, rpId: 'localhost' })]);

    const { log, visited } = watch(page);
    const request = await authorizationRequest();
    const before = app.received.length;
    const autofill = await page.evaluate(async () => {
      const pkc = (globalThis as any).PublicKeyCredential;
      return typeof pkc?.isConditionalMediationAvailable === 'function' && (await pkc.isConditionalMediationAvailable()) === true;
    });
    await page.goto(request.url.href);
    if (!autofill) {
      // No passkeys in the username field's autofill here: the button asks for one (usernameless).
      await page.getByRole('heading', { level: 1, name: `Sign in to continue to ${CLIENT_NAME}` }).waitFor();
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    }
    // With autofill, the page asks for a passkey through the username field as it opens; the
    // virtual authenticator answers at once, so the page signs in and completes by itself.
    const claims = await redeem(request, before, page, log);
    expectInteractionVisited(visited);
    expect(claims).toMatchObject({ sub, email, iss: issuer, aud: clientId, nonce: request.nonce });
    expect(claims.amr).toEqual(expect.arrayContaining(['hwk', 'mfa']));
    expect(claims.amr).not.toContain('pwd');
  });

  it('a mailed sign-in link asked for on the page: opened in the same browser, it finishes the app’s request (amr otp)', async () => {
    const username = `mia-${uniqueSlug('u')}`;
    const email = `${username}@factors.test`;
    const sub = await createUser(t, tenant.adminToken, sectorID, { username, email, password: PASSWORD, profile: { emailVerified: true } });

    const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const { log, visited } = watch(page);
    const request = await authorizationRequest();
    const before = app.received.length;
    await page.goto(request.url.href);
    await page.getByRole('heading', { level: 1, name: `Sign in to continue to ${CLIENT_NAME}` }).waitFor();
    const interactionPage = page.url();
    await page.getByRole('button', { name: 'Email link' }).click();
    await page.getByLabel('Email or username').fill(email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByText(`Open it in this browser to continue to ${CLIENT_NAME}`).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // The mail's link carries the request; opened in this browser, its page signs in and goes back to the request.
    const mail = await smtp.waitForMail((m) => m.envelopeTo.includes(email));
    const link = /(http:\/\/localhost:\d+\/[^\s"<>]*type=magic-link[^\s"<>]*)/.exec(mail.text)?.[1].replace(/&amp;/g, '&');
    expect(link).toEqual(expect.any(String));
    const linkURL = new URL(link as string);
    expect(linkURL.searchParams.get('interaction')).toBe(new URL(interactionPage).searchParams.get('interaction'));
    await page.goto(linkURL.href);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    const claims = await redeem(request, before, page, log);
    expectInteractionVisited(visited);
    expect(claims).toMatchObject({ sub, email, iss: issuer, aud: clientId, nonce: request.nonce });
    expect(claims.amr).toEqual(['otp']);
  });
});
