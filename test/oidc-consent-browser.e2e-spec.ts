/**
 * Consent to a third-party app through the OpenID Provider, in a real browser
 * (Debian's chromium through playwright-core), against the real service serving the
 * built console on a real PostgreSQL. `openid-client` is the app (a confidential
 * client an admin registered through the apps API with `firstParty: false`), a tiny
 * `node:http` server its redirect URI.
 *
 * - The user signs in on the service's page, which then asks for consent (the app's
 *   name, what it would see in words; checked with axe); Allow sends the browser to the
 *   redirect URI with `code`, `state` and `iss`, and the code buys an ID token.
 * - Consent is remembered: the same user in a fresh browser goes straight back to the
 *   app (the page completes the request once, without being refused for consent).
 * - Deny (on the consent screen, here asked for again with `prompt=consent`) and
 *   "Cancel and go back to the app" (on the sign-in step) send the browser to the
 *   redirect URI with `error=access_denied` and no code.
 * - The account page lists the app under "Apps"; revoking its access after a
 *   confirmation naming it removes it, its access token stops working, and the next
 *   authorization asks for consent again.
 * - A first-party app (the apps API's default) never shows the consent screen.
 * - In the console, an admin registers a third-party app by unchecking "First-party
 *   app": the list and the edit form say so, and the API stores `firstParty: false`.
 * Screens are photographed to test-artifacts/screenshots/oidc-consent-*.png.
 *
 * Needs the console built first (`npx vite build --config console/vite.config.ts`,
 * or `npm run build`). If chromium cannot start, the spec fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeAll, newConsolePage, requireConsoleBuild, seriousViolations, startBrowser } from './support/browser';
import { claimsOf } from './support/contract';
import { createSector, createUser, ProvisionedTenant, provisionTenant, uniqueSlug } from './support/factories';
import { freePort } from './support/global-setup';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { serveRedirectTarget, RedirectTarget } from './support/redirect-target';
import { eventually } from './support/wait';

jest.setTimeout(180_000);

const SHOTS = join(__dirname, '..', 'test-artifacts', 'screenshots');

const dynamicImport = (name: string): Promise<any> => import(name);

const THIRD_PARTY = 'Partner Reports';
const FIRST_PARTY = 'Staff Portal';

/** No serious or critical axe violations on the screen, which is photographed to test-artifacts/screenshots/oidc-consent-<name>.png. */
async function checkScreen(page: Page, name: string): Promise<void> {
  expect({ screen: name, violations: await seriousViolations(page) }).toEqual({ screen: name, violations: [] });
  // Passing confirmations (toasts) are left out of the pictures.
  await page.screenshot({ path: join(SHOTS, `oidc-consent-${name}.png`), fullPage: true, style: '.toasts { display: none !important; }' });
}

/** One answer of the service's API the page received. */
interface Answer {
  method: string;
  path: string;
  status: number;
}

/** A registered app: its client ID and secret. */
interface RegisteredApp {
  name: string;
  clientID: string;
  clientSecret: string;
}

describe('OpenID Provider consent to a third-party app, in chromium', () => {
  let t: TestApp;
  let oc: any;
  let browser: Browser;
  let redirect: RedirectTarget;
  let tenant: ProvisionedTenant;
  let sectorID: string;
  let issuer: string;
  let thirdParty: RegisteredApp;
  let firstParty: RegisteredApp;
  let danaSub: string;
  /** The access token the third-party app got on the first Allow (it stops working once its access is revoked). */
  let grantedAccessToken = '';
  const contexts: BrowserContext[] = [];

  const dana = { username: 'dana', email: 'dana@oidc-consent.test', password: 'dana-consent-password' };

  /** A fresh browser (its own cookies) on a new tab; the answers of the service's API are kept, and named when a wait fails. */
  async function newPage(): Promise<{ page: Page; answers: Answer[] }> {
    const context = await browser.newContext({ viewport: { width: 1024, height: 800 }, colorScheme: 'light' });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const answers: Answer[] = [];
    page.on('response', (res) => {
      const url = new URL(res.url());
      if (url.origin === t.baseUrl && (url.pathname.startsWith('/api/v1/') || url.pathname.startsWith('/oidc/'))) {
        answers.push({ method: res.request().method(), path: url.pathname, status: res.status() });
      }
    });
    return { page, answers };
  }

  /** Polls `check` until it answers true, or fails describing the page and the API answers it saw. */
  async function waitUntil(check: () => boolean | Promise<boolean>, what: string, page: Page, answers: Answer[]): Promise<void> {
    await eventually(check, 20_000, what).catch(async (err: Error) => {
      const text = await page.locator('body').innerText().catch(() => '(no page text)');
      throw new Error(`${err.message}; the browser is at ${page.url()} showing:\n${text.slice(0, 1200)}\n${answers.map((a) => `${a.method} ${a.path} -> ${a.status}`).join('\n')}`);
    });
  }

  /** An authorization request as openid-client builds it (PKCE, state, nonce). */
  async function authorizationRequest(client: RegisteredApp, extra: Record<string, string> = {}) {
    const config = await oc.discovery(new URL(issuer), client.clientID, client.clientSecret, oc.ClientSecretBasic(client.clientSecret), { execute: [oc.allowInsecureRequests] });
    const pkceCodeVerifier: string = oc.randomPKCECodeVerifier();
    const state: string = oc.randomState();
    const nonce: string = oc.randomNonce();
    const url: URL = oc.buildAuthorizationUrl(config, {
      redirect_uri: redirect.url,
      scope: 'openid email',
      code_challenge: await oc.calculatePKCECodeChallenge(pkceCodeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ...extra,
    });
    return { config, url, pkceCodeVerifier, state, nonce };
  }

  /** Opens the authorization URL in `page` and signs in as dana on the service's page. */
  async function signInFor(page: Page, client: RegisteredApp, url: URL): Promise<void> {
    await page.goto(url.href);
    await page.getByRole('heading', { level: 1, name: `Sign in to continue to ${client.name}` }).waitFor();
    await page.getByLabel('Username or email').fill(dana.username);
    await page.getByLabel('Password', { exact: true }).fill(dana.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  const consentHeading = (page: Page) => page.getByRole('heading', { level: 1, name: `${THIRD_PARTY} wants to access your account` });

  /** The newest answer at the redirect URI after `before` of them, once it arrives. */
  async function nextAnswer(before: number, page: Page, answers: Answer[]): Promise<URL> {
    await waitUntil(() => redirect.received.length > before, 'the redirect URI to receive the answer', page, answers);
    await page.waitForURL((u) => u.href.startsWith(redirect.url));
    return redirect.received[redirect.received.length - 1];
  }

  /** The page's calls to complete the request, as `status` codes in order. */
  const completions = (answers: Answer[]) => answers.filter((a) => a.method === 'POST' && /\/api\/v1\/oidc\/interactions\/[^/]+\/complete$/.test(a.path)).map((a) => a.status);

  async function registerApp(name: string, options: { firstParty?: boolean }): Promise<RegisteredApp> {
    const res = await t
      .http()
      .post(`/api/v1/sectors/${sectorID}/oidc/clients`)
      .set('Authorization', `Bearer ${tenant.adminToken}`)
      .send({ clientName: name, redirectURIs: [redirect.url], grantTypes: ['authorization_code'], tokenEndpointAuthMethod: 'client_secret_basic', ...options });
    if (res.status !== 200) throw new Error(`registering ${name} failed: ${res.status} ${JSON.stringify(res.body)}`);
    expect(res.body.client.firstParty).toBe(options.firstParty ?? true);
    return { name, clientID: res.body.client.clientID, clientSecret: res.body.clientSecret };
  }

  beforeAll(async () => {
    requireConsoleBuild();
    mkdirSync(SHOTS, { recursive: true });
    oc = await dynamicImport('openid-client');
    const port = await freePort();
    t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}`, ...NO_THROTTLE } });
    redirect = await serveRedirectTarget();
    tenant = await provisionTenant(t);
    const slug = uniqueSlug('s');
    sectorID = await createSector(t, tenant.adminToken, slug, { allowedOrigins: [t.baseUrl] });
    danaSub = await createUser(t, tenant.adminToken, sectorID, { ...dana, profile: { name: 'Dana Example' } });
    issuer = `${t.baseUrl}/oidc/${tenant.slug}/${slug}`;
    thirdParty = await registerApp(THIRD_PARTY, { firstParty: false });
    firstParty = await registerApp(FIRST_PARTY, {});
    browser = await startBrowser();
  });

  afterAll(() => closeAll([...contexts, browser], redirect, t));

  it('asks for consent after the sign-in; Allow delivers a code the app exchanges for an ID token', async () => {
    const { page, answers } = await newPage();
    const request = await authorizationRequest(thirdParty);
    const before = redirect.received.length;
    await signInFor(page, thirdParty, request.url);

    await consentHeading(page).waitFor();
    // The step replaced the form in place: its heading has the focus.
    await expect(page.evaluate(() => (globalThis as any).document.activeElement?.textContent as string)).resolves.toBe(`${THIRD_PARTY} wants to access your account`);
    await page.getByText('your email address').waitFor();
    await page.getByText(/who you are/).first().waitFor();
    await page.getByText(`${THIRD_PARTY} is not an app of`).waitFor();
    expect(completions(answers)).toEqual([400]);
    // Nothing reached the app yet.
    expect(redirect.received.length).toBe(before);
    await checkScreen(page, 'consent');

    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    const received = await nextAnswer(before, page, answers);
    expect(received.searchParams.get('error')).toBeNull();
    expect(received.searchParams.get('code')).toEqual(expect.any(String));
    expect(received.searchParams.get('state')).toBe(request.state);
    expect(received.searchParams.get('iss')).toBe(issuer);
    expect(completions(answers)).toEqual([400, 200]);

    const tokens = await oc.authorizationCodeGrant(request.config, new URL(received.href), {
      pkceCodeVerifier: request.pkceCodeVerifier,
      expectedState: request.state,
      expectedNonce: request.nonce,
    });
    expect(tokens.claims()).toMatchObject({ sub: danaSub, iss: issuer, aud: thirdParty.clientID, nonce: request.nonce, email: dana.email });
    expect(claimsOf(tokens.id_token).sub).toBe(danaSub);
    grantedAccessToken = tokens.access_token;
    await expect(oc.fetchUserInfo(request.config, grantedAccessToken, danaSub)).resolves.toMatchObject({ sub: danaSub });
  });

  it('remembers the consent: in a fresh browser the sign-in goes straight back to the app', async () => {
    const { page, answers } = await newPage();
    const request = await authorizationRequest(thirdParty);
    const before = redirect.received.length;
    await signInFor(page, thirdParty, request.url);
    const received = await nextAnswer(before, page, answers);
    expect(received.searchParams.get('code')).toEqual(expect.any(String));
    expect(received.searchParams.get('state')).toBe(request.state);
    // Completed at once: never refused for consent, so no consent screen was shown.
    expect(completions(answers)).toEqual([200]);
  });

  it('Deny on the consent screen, or Cancel on the sign-in step, sends the app access_denied and no code', async () => {
    // The app asks for consent again (prompt=consent), though the user granted it before.
    const asked = await newPage();
    const request = await authorizationRequest(thirdParty, { prompt: 'consent' });
    let before = redirect.received.length;
    await signInFor(asked.page, thirdParty, request.url);
    await consentHeading(asked.page).waitFor();
    await asked.page.getByRole('button', { name: 'Deny', exact: true }).click();
    let received = await nextAnswer(before, asked.page, asked.answers);
    expect(received.searchParams.get('error')).toBe('access_denied');
    expect(received.searchParams.get('code')).toBeNull();
    expect(received.searchParams.get('state')).toBe(request.state);
    // The sign-in, made only for this app, was ended.
    expect(asked.answers.filter((a) => a.method === 'POST' && a.path === '/api/v1/logout').map((a) => a.status)).toEqual([200]);

    // Declining before signing in.
    const cancelled = await newPage();
    const second = await authorizationRequest(thirdParty);
    before = redirect.received.length;
    await cancelled.page.goto(second.url.href);
    await cancelled.page.getByRole('heading', { level: 1, name: `Sign in to continue to ${THIRD_PARTY}` }).waitFor();
    await checkScreen(cancelled.page, 'sign-in');
    await cancelled.page.getByRole('button', { name: 'Cancel and go back to the app' }).click();
    received = await nextAnswer(before, cancelled.page, cancelled.answers);
    expect(received.searchParams.get('error')).toBe('access_denied');
    expect(received.searchParams.get('code')).toBeNull();
    expect(received.searchParams.get('state')).toBe(second.state);
    expect(completions(cancelled.answers)).toEqual([]);
  });

  it('lists the app on the account page; revoking its access ends its tokens, and the app asks for consent again', async () => {
    const { context, page } = await newConsolePage(browser, t.baseUrl);
    contexts.push(context);
    await page.goto(`${t.baseUrl}/account/sign-in?sector=${encodeURIComponent(sectorID)}`);
    await page.getByLabel('Username or email').fill(dana.username);
    await page.getByLabel('Password', { exact: true }).fill(dana.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
    await page.getByRole('navigation', { name: 'Account sections' }).getByRole('link', { name: 'Apps', exact: true }).click();

    const section = page.getByRole('region', { name: 'Apps', exact: true });
    const apps = section.getByRole('list', { name: 'Apps with access to your account' });
    const item = apps.getByRole('listitem').filter({ hasText: THIRD_PARTY });
    await item.waitFor();
    await item.getByText('Third-party app').waitFor();
    await item.getByText(/your email address/).waitFor();
    await item.getByText(/Access given/).waitFor();
    await checkScreen(page, 'account-apps');

    await item.getByRole('button', { name: `Revoke access of ${THIRD_PARTY}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: `Revoke the access of ${THIRD_PARTY}?` }).waitFor();
    await checkScreen(page, 'account-revoke-confirm');
    await dialog.getByRole('button', { name: 'Revoke access' }).click();
    await page.getByRole('status').filter({ hasText: `${THIRD_PARTY} can no longer access your account.` }).waitFor();
    await section.getByText('You have not given any app access to your account.').waitFor();
    await checkScreen(page, 'account-revoked');

    const grants = await t.http().get(`/api/v1/users/${danaSub}/oidc/grants`).set('Authorization', `Bearer ${tenant.adminToken}`);
    expect({ status: grants.status, grants: grants.body.grants }).toEqual({ status: 200, grants: [] });
    // The app's tokens stopped at once.
    const config = await oc.discovery(new URL(issuer), thirdParty.clientID, thirdParty.clientSecret, oc.ClientSecretBasic(thirdParty.clientSecret), { execute: [oc.allowInsecureRequests] });
    await expect(oc.fetchUserInfo(config, grantedAccessToken, danaSub)).rejects.toBeDefined();

    // The next sign-in for the app, in a fresh browser, asks again.
    const again = await newPage();
    const request = await authorizationRequest(thirdParty);
    const before = redirect.received.length;
    await signInFor(again.page, thirdParty, request.url);
    await consentHeading(again.page).waitFor();
    expect(completions(again.answers)).toEqual([400]);
    expect(redirect.received.length).toBe(before);
  });

  it('never asks for consent for a first-party app', async () => {
    const { page, answers } = await newPage();
    const request = await authorizationRequest(firstParty);
    const before = redirect.received.length;
    await signInFor(page, firstParty, request.url);
    const received = await nextAnswer(before, page, answers);
    expect(received.searchParams.get('code')).toEqual(expect.any(String));
    expect(received.searchParams.get('state')).toBe(request.state);
    expect(completions(answers)).toEqual([200]);
  });

  it('registers a third-party app in the console: the list and the edit form say so', async () => {
    const { context, page } = await newConsolePage(browser, t.baseUrl);
    contexts.push(context);
    const name = `Partner Wiki ${uniqueSlug('w')}`;
    await page.goto(`${t.baseUrl}/console/sign-in?sector=${encodeURIComponent(tenant.rootSectorID)}`);
    await page.getByLabel('Username or email').fill(tenant.adminEmail);
    await page.getByLabel('Password', { exact: true }).fill(tenant.adminPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    // Tokens live in the page's memory, so the screen is reached through the navigation, never a reload.
    await page.getByRole('navigation', { name: /console/i }).getByRole('link', { name: 'Apps (OpenID Connect)' }).click();
    await page.getByRole('button', { name: 'New app' }).click();

    const form = page.getByRole('form', { name: 'New app' });
    const firstPartyBox = form.getByRole('checkbox', { name: /^First-party app/ });
    await expect(firstPartyBox.isChecked()).resolves.toBe(true);
    await form.getByLabel(/^App name/).fill(name);
    await form.getByLabel('Redirect URIs', { exact: true }).fill(redirect.url);
    await firstPartyBox.uncheck();
    await form.getByRole('button', { name: 'Create app' }).click();
    const once = page.getByRole('region', { name: 'App created' });
    const clientID = (await once.getByTestId('client-id').innerText()).trim();

    const row = page.getByRole('table', { name: 'Apps of this sector' }).getByRole('row').filter({ hasText: name });
    await row.getByText('Third-party', { exact: true }).waitFor();
    await expect(row.getByText('first-party').count()).resolves.toBe(0);
    await row.getByRole('button', { name: `Edit ${name}` }).click();
    const edit = page.getByRole('form', { name: `Edit ${name}` });
    await expect(edit.getByRole('checkbox', { name: /^First-party app/ }).isChecked()).resolves.toBe(false);
    await checkScreen(page, 'console-edit-third-party');

    const stored = await t.http().get(`/api/v1/sectors/${tenant.rootSectorID}/oidc/clients/${encodeURIComponent(clientID)}`).set('Authorization', `Bearer ${tenant.adminToken}`);
    expect({ status: stored.status, firstParty: stored.body.firstParty }).toEqual({ status: 200, firstParty: false });
  });
});
