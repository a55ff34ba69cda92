/**
 * Signing in to an app through the OpenID Provider in a real browser (Debian's
 * chromium through playwright-core): `openid-client` is the app (a confidential
 * client registered with RFC 7591, PKCE, state and nonce), a tiny `node:http`
 * server is its redirect URI. The provider sends the browser to the service's
 * sign-in page (`/api/v1/oidc/interactions/{id}`, the console app), the user signs
 * in there with a username and password, the page completes the request, and the
 * browser arrives at the redirect URI with `code`, `state` and `iss`; the code is
 * exchanged and the ID token's claims checked, and UserInfo answers the email.
 * A social sign-in started on that page (the generic OpenID provider, a real
 * `oidc-provider` on 127.0.0.1) comes back to it and completes the request too;
 * the sector's mailed sign-in links are not offered there (their mail leads to the
 * account page, not back to the app). A user of another sector gets an error on
 * that page and no code reaches the app; so does a browser that did not start the
 * request; an unknown request shows that it has ended, with no form. The page is
 * checked with axe and photographed to test-artifacts/screenshots/oidc-*.png.
 *
 * Needs the console built first (`npx vite build --config console/vite.config.ts`,
 * or `npm run build`). If chromium cannot start, the spec fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeAll, requireConsoleBuild, seriousViolations, startBrowser } from './support/browser';
import { claimsOf } from './support/contract';
import { createSector, createUser, ProvisionedTenant, provisionTenant, uniqueSlug } from './support/factories';
import { freePort } from './support/global-setup';
import { OidcIdp, startOidcIdp } from './support/oidc-idp';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { serveRedirectTarget, RedirectTarget } from './support/redirect-target';
import { eventually } from './support/wait';

jest.setTimeout(180_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');

const dynamicImport = (name: string): Promise<any> => import(name);

/** No serious or critical axe violations on the screen, which is photographed to test-artifacts/screenshots/oidc-<name>.png. */
async function checkScreen(page: Page, name: string): Promise<void> {
  expect({ screen: name, violations: await seriousViolations(page) }).toEqual({ screen: name, violations: [] });
  await page.screenshot({ path: join(SHOTS, `oidc-${name}.png`), fullPage: true });
}

/** Polls `check` until it answers true (or fails after `timeoutMs`, describing the page). */
async function waitUntil(check: () => boolean | Promise<boolean>, what: string, page: Page, timeoutMs = 20_000): Promise<void> {
  await eventually(check, timeoutMs, what).catch(async (err: Error) => {
    const text = await page.locator('body').innerText().catch(() => '(no page text)');
    throw new Error(`${err.message}; the browser is at ${page.url()} showing:\n${text.slice(0, 1200)}`);
  });
}

describe('OpenID Provider sign-in page in chromium', () => {
  let t: TestApp;
  let oc: any;
  let browser: Browser;
  let app: RedirectTarget;
  let tenant: ProvisionedTenant;
  let sector: { id: string; slug: string };
  let otherSectorID: string;
  let issuer: string;
  let clientId: string;
  let clientSecret: string;
  let aliceSub: string;
  let carolSub: string;
  let idp: OidcIdp;
  const contexts: BrowserContext[] = [];

  const alice = { username: 'alice', email: 'alice@oidc-browser.test', password: 'alice-oidc-password' };
  // The same username and password, in another sector of the tenant.
  const bob = { username: 'bob', email: 'bob@oidc-browser.test', password: 'bob-oidc-password' };
  // Signs in through the sector's generic OpenID provider (linked by her verified email).
  const carol = { username: 'carol', email: 'carol@oidc-browser.test', password: 'carol-oidc-password' };

  /** A fresh browser (its own cookies) on a new tab; network answers of the interaction API are logged for failures. */
  async function newPage(): Promise<{ page: Page; log: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const log: string[] = [];
    page.on('response', (res) => {
      if (res.url().includes('/api/v1/oidc/') || res.url().includes('/oidc/')) {
        const req = res.request();
        void res
          .text()
          .catch(() => '')
          .then((body) => log.push(`${req.method()} ${res.url()} -> ${res.status()} ${res.headers()['location'] ?? ''} ${body.slice(0, 300)}`));
      }
    });
    return { page, log };
  }

  /** A new authorization request as openid-client builds it, with its PKCE verifier, state and nonce. */
  async function authorizationRequest() {
    const config = await oc.discovery(new URL(issuer), clientId, clientSecret, oc.ClientSecretBasic(clientSecret), { execute: [oc.allowInsecureRequests] });
    const pkceCodeVerifier: string = oc.randomPKCECodeVerifier();
    const codeChallenge: string = await oc.calculatePKCECodeChallenge(pkceCodeVerifier);
    const state: string = oc.randomState();
    const nonce: string = oc.randomNonce();
    const url: URL = oc.buildAuthorizationUrl(config, {
      redirect_uri: app.url,
      scope: 'openid email profile',
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { config, url, pkceCodeVerifier, state, nonce };
  }

  /** Opens the authorization URL and waits for the service's sign-in page for it. */
  async function openSignInPage(page: Page, url: URL, log: string[]): Promise<void> {
    await page.goto(url.href);
    await page
      .getByRole('heading', { level: 1, name: 'Sign in to continue to Browser App' })
      .waitFor()
      .catch(async (err: Error) => {
        throw new Error(`no sign-in page for the app at ${page.url()}:\n${(await page.locator('body').innerText().catch(() => '')).slice(0, 800)}\n${log.join('\n')}\n${err.message}`);
      });
  }

  async function fillAndSubmit(page: Page, user: { username: string; password: string }): Promise<void> {
    await page.getByLabel('Username or email').fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    oc = await dynamicImport('openid-client');
    const port = await freePort();
    t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}`, ...NO_THROTTLE } });
    app = await serveRedirectTarget();
    tenant = await provisionTenant(t);
    const slug = uniqueSlug('s');
    // The service's own origin may be a social sign-in's return (the sign-in page is there).
    sector = { id: await createSector(t, tenant.adminToken, slug, { allowedOrigins: [t.baseUrl] }), slug };
    otherSectorID = await createSector(t, tenant.adminToken);
    aliceSub = await createUser(t, tenant.adminToken, sector.id, { ...alice, profile: { name: 'Alice Example' } });
    carolSub = await createUser(t, tenant.adminToken, sector.id, { ...carol, profile: { name: 'Carol Example', emailVerified: true } });
    await createUser(t, tenant.adminToken, otherSectorID, bob);

    idp = await startOidcIdp([`${t.baseUrl}/api/v1/oauth/oidc/callback`]);
    idp.accounts.set('idp-carol', { sub: 'idp-carol', email: carol.email, email_verified: true, name: 'Carol Example' });
    idp.useAccount('idp-carol');
    const providers = await t
      .http()
      .put(`/api/v1/sectors/${sector.id}/oauth/providers`)
      .set('Authorization', `Bearer ${tenant.adminToken}`)
      .send({ providers: { oidc: { enabled: true, clientID: idp.clientId, clientSecret: idp.clientSecret, issuerURL: idp.issuer, redirectURI: `${t.baseUrl}/api/v1/oauth/oidc/callback` } } });
    if (providers.status !== 200) throw new Error(`configuring the social provider failed: ${providers.status} ${JSON.stringify(providers.body)}`);
    const settings = await t.http().put(`/api/v1/sectors/${sector.id}/settings`).set('Authorization', `Bearer ${tenant.adminToken}`).send({ MagicLinkLoginEnabled: true });
    if (settings.status !== 200) throw new Error(`enabling sign-in links failed: ${settings.status} ${JSON.stringify(settings.body)}`);
    issuer = `${t.baseUrl}/oidc/${tenant.slug}/${sector.slug}`;

    const reg = await t
      .http()
      .post(`${issuer.slice(t.baseUrl.length)}/reg`)
      .set('Authorization', `Bearer ${tenant.adminToken}`)
      .send({
        client_name: 'Browser App',
        redirect_uris: [app.url],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      });
    if (reg.status !== 201) throw new Error(`registering the client failed: ${reg.status} ${JSON.stringify(reg.body)}`);
    ({ client_id: clientId, client_secret: clientSecret } = reg.body);
    browser = await startBrowser();
  });

  afterAll(() => closeAll([...contexts, browser], app, idp, t));

  it('signs a user in on the service’s page and delivers a code the app exchanges for an ID token and UserInfo', async () => {
    const { page, log } = await newPage();
    const request = await authorizationRequest();
    const before = app.received.length;
    const startedAt = Math.floor(Date.now() / 1000);
    await openSignInPage(page, request.url, log);

    // The provider sent the browser to the interaction page, naming the request and the issuer's sector.
    const here = new URL(page.url());
    expect(here.origin).toBe(t.baseUrl);
    expect(here.pathname).toMatch(/^\/api\/v1\/oidc\/interactions\/[^/]+$/);
    expect(here.searchParams.get('interaction')).toBe(decodeURIComponent(here.pathname.split('/').pop() ?? ''));
    expect(here.searchParams.get('sector')).toBe(sector.id);
    await checkScreen(page, 'sign-in');

    await fillAndSubmit(page, alice);
    await waitUntil(() => app.received.length > before, `the redirect URI to receive the answer (log:\n${log.join('\n')})`, page);
    const received = app.received[app.received.length - 1];
    expect(received.searchParams.get('error')).toBeNull();
    expect(received.searchParams.get('code')).toEqual(expect.any(String));
    expect(received.searchParams.get('state')).toBe(request.state);
    expect(received.searchParams.get('iss')).toBe(issuer);
    await page.waitForURL((url) => url.href.startsWith(app.url));

    const tokens = await oc.authorizationCodeGrant(request.config, new URL(received.href), {
      pkceCodeVerifier: request.pkceCodeVerifier,
      expectedState: request.state,
      expectedNonce: request.nonce,
    });
    const claims = tokens.claims();
    expect(claims).toMatchObject({ sub: aliceSub, email: alice.email, iss: issuer, aud: clientId, nonce: request.nonce });
    expect(claims.auth_time).toEqual(expect.any(Number));
    expect(claims.auth_time).toBeGreaterThanOrEqual(startedAt - 5);
    expect(claims.auth_time).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 5);
    expect(Array.isArray(claims.amr)).toBe(true);
    expect(claims.amr).toContain('pwd');
    // The ID token itself, as sent: signed by the tenant's key.
    expect(claimsOf(tokens.id_token).sub).toBe(aliceSub);

    const userinfo = await oc.fetchUserInfo(request.config, tokens.access_token, claims.sub);
    expect(userinfo).toMatchObject({ sub: aliceSub, email: alice.email });

    // The code is single use.
    await expect(
      oc.authorizationCodeGrant(request.config, new URL(received.href), {
        pkceCodeVerifier: request.pkceCodeVerifier,
        expectedState: request.state,
        expectedNonce: request.nonce,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });

    // The provider's session id (for logout), last: everything above holds without it.
    expect({ sid: claims.sid }).toEqual({ sid: expect.stringMatching(/^\S+$/) });
  });

  it('comes back to the page from a social sign-in started there, and completes the request', async () => {
    const { page, log } = await newPage();
    const request = await authorizationRequest();
    const before = app.received.length;
    await openSignInPage(page, request.url, log);
    const interactionURL = new URL(page.url());

    // Every way the sector offers is on the app's sign-in page too, mailed links included (oidc-browser-factors tries those).
    await page.getByRole('button', { name: 'Continue with single sign-on' }).waitFor();
    await expect(page.getByRole('button', { name: 'Email link' }).count()).resolves.toBe(1);

    const returns: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame() && frame.url().startsWith(`${t.baseUrl}${interactionURL.pathname}`)) returns.push(frame.url());
    });
    await page.getByRole('button', { name: 'Continue with single sign-on' }).click();
    await waitUntil(() => app.received.length > before, `the redirect URI to receive the answer after the social sign-in (log:\n${log.join('\n')})`, page);

    // The provider's return came to this page, keeping the request and the sector, with the flow's code.
    const back = returns.map((u) => new URL(u)).find((u) => u.searchParams.has('flow'));
    expect(back?.searchParams.get('interaction')).toBe(interactionURL.searchParams.get('interaction'));
    expect(back?.searchParams.get('sector')).toBe(sector.id);
    expect(back?.searchParams.get('code')).toEqual(expect.any(String));

    const received = app.received[app.received.length - 1];
    expect(received.searchParams.get('error')).toBeNull();
    expect(received.searchParams.get('state')).toBe(request.state);
    const tokens = await oc.authorizationCodeGrant(request.config, new URL(received.href), {
      pkceCodeVerifier: request.pkceCodeVerifier,
      expectedState: request.state,
      expectedNonce: request.nonce,
    });
    expect(tokens.claims()).toMatchObject({ sub: carolSub, email: carol.email, iss: issuer, nonce: request.nonce });
  });

  it('shows an error to a user of another sector, and no code reaches the app', async () => {
    const { page, log } = await newPage();
    const request = await authorizationRequest();
    const before = app.received.length;
    await openSignInPage(page, request.url, log);
    const interactionURL = page.url();

    // The page signs in to the issuer's sector: another sector's account is not found there.
    await fillAndSubmit(page, bob);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/\S/);
    expect(page.url()).toBe(interactionURL);
    await page.getByRole('heading', { level: 1, name: 'Sign in to continue to Browser App' }).waitFor();
    await checkScreen(page, 'other-sector');

    // Nor does that account's own access token complete the request, even from the browser that started it.
    const bobToken = await t.login(bob.username, bob.password, otherSectorID);
    const id = decodeURIComponent(new URL(interactionURL).pathname.split('/').pop() ?? '');
    const answer = await page.evaluate(
      async ({ path, token }) => {
        const res = await (globalThis as any).fetch(path, {
          method: 'POST',
          headers: { Accept: 'application/json', 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
          body: '{}',
          credentials: 'same-origin',
        });
        return { status: res.status as number, body: (await res.text()) as string };
      },
      { path: `/api/v1/oidc/interactions/${encodeURIComponent(id)}/complete`, token: bobToken },
    );
    expect({ status: answer.status, code: (JSON.parse(answer.body) as { code?: number }).code }).toEqual({ status: 403, code: 7 });

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(app.received.length).toBe(before);
  });

  it('refuses the request in a browser that did not start it: the page says so, and no code reaches the app', async () => {
    const started = await newPage();
    const request = await authorizationRequest();
    const before = app.received.length;
    await openSignInPage(started.page, request.url, started.log);
    const interactionURL = started.page.url();

    // The same address in another browser (without the provider's interaction cookie).
    const other = await newPage();
    await other.page.goto(interactionURL);
    await other.page.getByRole('heading', { level: 1, name: 'Sign in to continue to Browser App' }).waitFor();
    await fillAndSubmit(other.page, alice);
    const alert = other.page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/another browser/);
    // The form is back, the password cleared.
    await expect(other.page.getByLabel('Password', { exact: true }).inputValue()).resolves.toBe('');
    expect(other.page.url()).toBe(interactionURL);
    await checkScreen(other.page, 'other-browser');

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(app.received.length).toBe(before);
  });

  it('shows that an unknown request has ended, with no sign-in form', async () => {
    const { page } = await newPage();
    const id = 'no-such-interaction-0123456789';
    await page.goto(`${t.baseUrl}/api/v1/oidc/interactions/${id}?interaction=${id}&sector=${sector.id}`);
    await page.getByRole('heading', { level: 1, name: 'This sign-in link has ended' }).waitFor();
    expect(await page.getByRole('alert').innerText()).toMatch(/expired, was already completed, or does not exist/);
    await expect(page.getByLabel('Password', { exact: true }).count()).resolves.toBe(0);
    await checkScreen(page, 'ended');
  });
});
