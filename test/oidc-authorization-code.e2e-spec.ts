import request from 'supertest';
import { expectError } from './support/contract';
import { createSector, createUser, ProvisionedTenant, provisionTenant, tenantSql, uniqueSlug } from './support/factories';
import { freePort } from './support/global-setup';
import { followToApp as followRedirectsToApp, localPath, startAuthorization } from './support/oidc-flow';
import { startTestApp, TestApp } from './support/test-app';

/**
 * The OpenID Provider's authorization code flow, as an app's backend and a browser
 * drive it over HTTP (the browser's cookies in a supertest agent; the sign-in page's
 * calls made directly): authorize → the sign-in page's interaction → the sign-in API →
 * complete → the provider → the app's redirect URI with `code`, `state` and `iss`;
 * then the token endpoint through `openid-client` (PKCE), the ID token's claims,
 * userinfo, refresh rotation and reuse, and each refusal of the contract.
 */

const dynamicImport = (name: string): Promise<any> => import(name);
const FAILED_PRECONDITION = 9;
const PERMISSION_DENIED = 7;
const NOT_FOUND = 5;
const REDIRECT_URI = 'https://app.example.com/cb';

describe('OpenID Provider: authorization code flow', () => {
  let t: TestApp;
  let oc: any;
  let a: ProvisionedTenant;
  let sector: { id: string; slug: string };
  let other: { id: string; slug: string };
  let issuer: string;
  let client: { client_id: string; client_secret: string };
  let config: any;
  let userSub: string;

  const USER = { username: 'alice', email: 'alice@example.com', password: 'alice-password-1', name: 'Alice Example', givenName: 'Alice', familyName: 'Example' };

  async function register(metadata: Record<string, unknown>) {
    const res = await t.http().post(`${new URL(issuer).pathname}/reg`).set('Authorization', `Bearer ${a.adminToken}`).send(metadata);
    if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  /** A browser: its own cookies, never following redirects by itself. */
  function browser() {
    return request.agent(t.baseUrl);
  }

  const local = localPath;
  const authorize = (agent: request.Agent, params: Record<string, string> = {}, conf = config) => startAuthorization(oc, agent, conf, REDIRECT_URI, params);
  const followToApp = (agent: request.Agent, redirectTo: string) => followRedirectsToApp(agent, t.baseUrl, REDIRECT_URI, redirectTo);

  async function signIn(username = USER.username, password = USER.password, sectorID = sector.id) {
    return t.login(username, password, sectorID);
  }

  beforeAll(async () => {
    oc = await dynamicImport('openid-client');
    const port = await freePort();
    t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
    a = await provisionTenant(t);
    const slug = uniqueSlug('s');
    sector = { id: await createSector(t, a.adminToken, slug), slug };
    const otherSlug = uniqueSlug('s');
    other = { id: await createSector(t, a.adminToken, otherSlug), slug: otherSlug };
    issuer = `${t.baseUrl}/oidc/${a.slug}/${slug}`;
    userSub = await createUser(t, a.adminToken, sector.id, {
      username: USER.username,
      email: USER.email,
      password: USER.password,
      profile: { name: USER.name, givenName: USER.givenName, familyName: USER.familyName, emailVerified: true },
    });
    await createUser(t, a.adminToken, other.id, { username: 'bob', email: 'bob@example.com', password: 'bob-password-1' });
    client = await register({ client_name: 'Billing', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] });
    config = await oc.discovery(new URL(issuer), client.client_id, client.client_secret, undefined, { execute: [oc.allowInsecureRequests] });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('signs a user in: interaction, sign-in API, complete, code with state and iss, tokens with the contract’s ID token claims', async () => {
    const agent = browser();
    const started = await authorize(agent);

    // The sign-in page's view of the request.
    const details = await agent.get(`/api/v1/oidc/interactions/${started.interaction}`).set('Accept', 'application/json');
    expect(details.status).toBe(200);
    expect(details.body).toMatchObject({
      interactionID: started.interaction,
      sectorID: sector.id,
      client: { clientID: client.client_id, clientName: 'Billing', firstParty: true },
      scopes: ['openid', 'email', 'profile'],
      prompt: 'login',
    });
    expect(Date.parse(details.body.expiresAt)).toBeGreaterThan(Date.now());

    const token = await signIn();
    const done = await agent.post(`/api/v1/oidc/interactions/${started.interaction}/complete`).set('Authorization', `Bearer ${token}`);
    expect(done.status).toBe(200);
    expect(done.body.redirectTo.startsWith(`${issuer}/`)).toBe(true);

    const callback = await followToApp(agent, done.body.redirectTo);
    expect(callback.searchParams.get('state')).toBe(started.state);
    expect(callback.searchParams.get('iss')).toBe(issuer);
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));

    const tokens = await oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.codeVerifier, expectedState: started.state, expectedNonce: started.nonce });
    const header = JSON.parse(Buffer.from(tokens.id_token.split('.')[0], 'base64url').toString());
    expect(header.alg).toBe('RS256');
    const claims = tokens.claims();
    expect(claims).toMatchObject({
      iss: issuer,
      sub: userSub,
      aud: client.client_id,
      nonce: started.nonce,
      amr: ['pwd'],
      email: USER.email,
      email_verified: true,
      name: USER.name,
      given_name: USER.givenName,
      family_name: USER.familyName,
      preferred_username: USER.username,
    });
    for (const claim of ['exp', 'iat', 'auth_time', 'updated_at']) expect(claims[claim]).toEqual(expect.any(Number));
    expect(claims.sid).toEqual(expect.any(String));
    expect(Math.abs(claims.auth_time - Date.now() / 1000)).toBeLessThan(60);
    expect(tokens.refresh_token).toBeUndefined();

    // The access token: userinfo answers the granted claims; /api/v1 does not take it.
    const userinfo = await oc.fetchUserInfo(config, tokens.access_token, userSub);
    expect(userinfo).toMatchObject({ sub: userSub, email: USER.email, name: USER.name });
    const api = await t.http().get(`/api/v1/users/${userSub}`).set('Authorization', `Bearer ${tokens.access_token}`);
    expect(api.status).toBe(401);
    const idAsBearer = await t.http().get(`/api/v1/users/${userSub}`).set('Authorization', `Bearer ${tokens.id_token}`);
    expect(idAsBearer.status).toBe(401);

    // The code is single-use: a replay fails and revokes what it issued.
    await expect(oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.codeVerifier, expectedState: started.state, expectedNonce: started.nonce })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect(await oc.tokenIntrospection(config, tokens.access_token)).toEqual({ active: false });
  });

  it('refuses to finish a request for a user of another sector, an API token, or in another browser', async () => {
    const agent = browser();
    const started = await authorize(agent);
    const complete = (who: request.Agent, token: string) => who.post(`/api/v1/oidc/interactions/${started.interaction}/complete`).set('Authorization', `Bearer ${token}`);

    expectError(await complete(agent, await signIn('bob', 'bob-password-1', other.id)), 403, PERMISSION_DENIED, 'OIDC_WRONG_SECTOR');
    expectError(await complete(agent, a.adminToken), 403, PERMISSION_DENIED, 'OIDC_WRONG_SECTOR');
    const apiToken = (await t.http().post(`/api/v1/sectors/${sector.id}/tokens`).set('Authorization', `Bearer ${a.adminToken}`).send({ name: 'x' })).body.token;
    expectError(await complete(agent, apiToken), 403, PERMISSION_DENIED, 'OIDC_WRONG_SECTOR');

    // A victim lured into finishing a request an attacker's browser started: the victim's browser lacks its cookie.
    expectError(await complete(browser(), await signIn()), 403, PERMISSION_DENIED, 'OIDC_INTERACTION_OTHER_BROWSER');

    // The owner can still finish it; then it is completed, and unknown ids are not found either.
    const done = await complete(agent, await signIn());
    expect(done.status).toBe(200);
    expectError(await complete(agent, await signIn()), 404, NOT_FOUND, 'OIDC_INTERACTION_NOT_FOUND');
    for (const id of ['nope', `${started.interaction}x`, `AAAA.${Buffer.alloc(16).toString('base64url')}`]) {
      expectError(await agent.get(`/api/v1/oidc/interactions/${id}`), 404, NOT_FOUND, 'OIDC_INTERACTION_NOT_FOUND');
    }
  });

  it('asks for a fresh sign-in with prompt=login and max_age', async () => {
    const old = await signIn();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const agent = browser();
    const started = await authorize(agent, { prompt: 'login' });
    const stale = await agent.post(`/api/v1/oidc/interactions/${started.interaction}/complete`).set('Authorization', `Bearer ${old}`);
    expectError(stale, 400, FAILED_PRECONDITION, 'OIDC_LOGIN_REQUIRED');
    const fresh = await agent.post(`/api/v1/oidc/interactions/${started.interaction}/complete`).set('Authorization', `Bearer ${await signIn()}`);
    expect(fresh.status).toBe(200);

    const agent2 = browser();
    const aged = await authorize(agent2, { max_age: '1' });
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const tooOld = await agent2.post(`/api/v1/oidc/interactions/${aged.interaction}/complete`).set('Authorization', `Bearer ${old}`);
    expectError(tooOld, 400, FAILED_PRECONDITION, 'OIDC_LOGIN_REQUIRED');
  });

  it('issues refresh tokens for offline_access, rotates them on every use, and revokes the grant when one is reused', async () => {
    const agent = browser();
    const started = await authorize(agent, { scope: 'openid offline_access', prompt: 'consent' });
    const done = await agent.post(`/api/v1/oidc/interactions/${started.interaction}/complete`).set('Authorization', `Bearer ${await signIn()}`);
    expect(done.status).toBe(200);
    const callback = await followToApp(agent, done.body.redirectTo);
    const tokens = await oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.codeVerifier, expectedState: started.state, expectedNonce: started.nonce });
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const second = await oc.refreshTokenGrant(config, tokens.refresh_token);
    expect(second.refresh_token).toEqual(expect.any(String));
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    expect(second.claims()?.sub).toBe(userSub);

    await expect(oc.refreshTokenGrant(config, tokens.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(oc.refreshTokenGrant(config, second.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await oc.tokenIntrospection(config, second.access_token)).toEqual({ active: false });
  });

  it('puts the same sid in the ID token of a refresh, never at userinfo', async () => {
    const agent = browser();
    const started = await authorize(agent, { scope: 'openid offline_access', prompt: 'consent' });
    const done = await agent.post(`/api/v1/oidc/interactions/${started.interaction}/complete`).set('Authorization', `Bearer ${await signIn()}`);
    const callback = await followToApp(agent, done.body.redirectTo);
    const tokens = await oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.codeVerifier, expectedState: started.state, expectedNonce: started.nonce });
    const sid = tokens.claims().sid;
    expect(sid).toEqual(expect.any(String));
    const refreshed = await oc.refreshTokenGrant(config, tokens.refresh_token);
    expect(refreshed.claims()?.sid).toBe(sid);
    expect((await oc.fetchUserInfo(config, refreshed.access_token, userSub)).sid).toBeUndefined();
  });

  it('refuses a redirect URI that is not registered with an error page, never a redirect', async () => {
    const url: URL = oc.buildAuthorizationUrl(config, { redirect_uri: 'https://evil.example.com/cb', scope: 'openid', state: 'x' });
    const res = await browser().get(local(url.href));
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('redirect_uri');
    const unknownClient = await browser().get(`${new URL(issuer).pathname}/auth?client_id=nope&response_type=code&scope=openid&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`);
    expect(unknownClient.status).toBe(400);
    expect(unknownClient.headers.location).toBeUndefined();
  });

  it('requires PKCE of a public client (and refuses plain)', async () => {
    const pub = await register({ client_name: 'SPA', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' });
    const pubConfig = await oc.discovery(new URL(issuer), pub.client_id, undefined, oc.None(), { execute: [oc.allowInsecureRequests] });
    const noPkce: URL = oc.buildAuthorizationUrl(pubConfig, { redirect_uri: REDIRECT_URI, scope: 'openid', state: 'st' });
    const res = await browser().get(local(noPkce.href));
    expect(res.status).toBe(303);
    const back = new URL(res.headers.location);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('state')).toBe('st');
    const plain: URL = oc.buildAuthorizationUrl(pubConfig, { redirect_uri: REDIRECT_URI, scope: 'openid', state: 'st', code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' });
    const refused = new URL((await browser().get(local(plain.href))).headers.location);
    expect(refused.searchParams.get('error')).toBe('invalid_request');
  });

  it('lets a flow begun on one instance finish on another on the same database', async () => {
    const agent = browser();
    const started = await authorize(agent);
    const second = await startTestApp({ databaseName: t.databaseName, env: { PUBLIC_URL: t.config.publicUrl } });
    try {
      // One browser: the second instance's agent shares the first's cookies (browsers do not key cookies by port).
      const onSecond = request.agent(second.baseUrl) as request.Agent & { jar: unknown };
      onSecond.jar = (agent as request.Agent & { jar: unknown }).jar;
      const token = await second.login(USER.username, USER.password, sector.id);
      const done = await onSecond.post(`/api/v1/oidc/interactions/${started.interaction}/complete`).set('Authorization', `Bearer ${token}`);
      expect(done.status).toBe(200);
      const callback = await followToApp(agent, done.body.redirectTo);
      const tokens = await oc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: started.codeVerifier, expectedState: started.state, expectedNonce: started.nonce });
      expect(tokens.claims()?.sub).toBe(userSub);
    } finally {
      await second.close();
    }
  });

  it('serves the sign-in page to a browser at the interaction URL', async () => {
    const agent = browser();
    const started = await authorize(agent);
    const page = await agent.get(local(started.location.href)).set('Accept', 'text/html,application/xhtml+xml');
    // The console is built by `npm test`'s pretest; a bare run without a build answers 404 ROUTE_NOT_FOUND.
    if (page.status === 200) {
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.headers.vary).toMatch(/Accept/);
    } else {
      expectError(page, 404, NOT_FOUND, 'ROUTE_NOT_FOUND');
    }
  });
});

describe('OpenID Provider: device flow (RFC 8628)', () => {
  let t: TestApp;
  let issuer: string;
  let sectorID: string;
  let clientId: string;
  const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
  const USER = { username: 'dora', email: 'dora@example.com', password: 'dora-password-1' };

  const path = (url: string) => {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  };
  const xsrfOf = (html: string) => /name="xsrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

  async function deviceAuthorization() {
    const res = await t.http().post(`${new URL(issuer).pathname}/device/auth`).type('form').send({ client_id: clientId, scope: 'openid email' });
    expect(res.status).toBe(200);
    return res.body as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; interval: number; expires_in: number };
  }

  const poll = (deviceCode: string) => t.http().post(`${new URL(issuer).pathname}/token`).type('form').send({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId });

  /** The user enters the code on the service's device page and gets to the confirmation; answers the agent and the confirm form's xsrf. */
  async function enterCode(userCode: string) {
    const agent = request.agent(t.baseUrl);
    const d = (await t.http().get(`${new URL(issuer).pathname}/.well-known/openid-configuration`)).body;
    const input = await agent.get(path(`${issuer}/device`));
    expect(input.status).toBe(200);
    expect(input.text).toContain('Connect a device');
    const confirm = await agent.post(path(`${issuer}/device`)).type('form').send({ xsrf: xsrfOf(input.text), user_code: userCode });
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Device client');
    expect(d.device_authorization_endpoint).toBe(`${issuer}/device/auth`);
    return { agent, xsrf: xsrfOf(confirm.text) };
  }

  beforeAll(async () => {
    const port = await freePort();
    t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
    const a = await provisionTenant(t);
    const slug = uniqueSlug('s');
    sectorID = await createSector(t, a.adminToken, slug);
    issuer = `${t.baseUrl}/oidc/${a.slug}/${slug}`;
    await createUser(t, a.adminToken, sectorID, USER);
    const reg = await t
      .http()
      .post(`${new URL(issuer).pathname}/reg`)
      .set('Authorization', `Bearer ${a.adminToken}`)
      .send({ client_name: 'Device client', grant_types: [DEVICE_GRANT], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'none' });
    expect(reg.status).toBe(201);
    clientId = reg.body.client_id;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('answers authorization_pending and slow_down while waiting, and tokens once the user confirmed on the service’s page', async () => {
    const device = await deviceAuthorization();
    expect(device.verification_uri).toBe(`${issuer}/device`);
    expect(device.verification_uri_complete).toBe(`${issuer}/device?user_code=${encodeURIComponent(device.user_code)}`);
    expect((await poll(device.device_code)).body.error).toBe('authorization_pending');
    expect((await poll(device.device_code)).body.error).toBe('slow_down');

    const { agent, xsrf } = await enterCode(device.user_code);
    const started = await agent.post(path(`${issuer}/device`)).type('form').send({ xsrf, user_code: device.user_code, confirm: 'yes' });
    expect(started.status).toBe(303);
    const interaction = new URL(started.headers.location).searchParams.get('interaction');
    const done = await agent.post(`/api/v1/oidc/interactions/${interaction}/complete`).set('Authorization', `Bearer ${await t.login(USER.username, USER.password, sectorID)}`);
    expect(done.status).toBe(200);
    let next = done.body.redirectTo as string;
    let page = await agent.get(path(next));
    for (let hop = 0; hop < 4 && [302, 303].includes(page.status); hop++) {
      next = new URL(page.headers.location, next).href;
      page = await agent.get(path(next));
    }
    expect(page.status).toBe(200);
    expect(page.text).toContain('Device connected');

    expect(device.interval).toBe(5);
    await new Promise((resolve) => setTimeout(resolve, device.interval * 1000 + 200));
    const tokens = await poll(device.device_code);
    expect(tokens.status).toBe(200);
    expect(tokens.body.access_token).toEqual(expect.any(String));
    const claims = JSON.parse(Buffer.from(tokens.body.id_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ iss: issuer, aud: clientId, email: USER.email, amr: ['pwd'] });
  }, 60_000);

  it('answers access_denied when the user cancels, and expired_token past the code’s lifetime', async () => {
    const denied = await deviceAuthorization();
    const { agent, xsrf } = await enterCode(denied.user_code);
    const cancel = await agent.post(path(`${issuer}/device`)).type('form').send({ xsrf, user_code: denied.user_code, abort: 'yes' });
    expect(cancel.status).toBe(200);
    expect((await poll(denied.device_code)).body.error).toBe('access_denied');

    const expired = await deviceAuthorization();
    // The code's lifetime, passed: its stored expiry moved back (the library checks the payload's `exp`).
    await tenantPayloadsExpire(expired.device_code);
    expect((await poll(expired.device_code)).body.error).toBe('expired_token');
  });

  async function tenantPayloadsExpire(deviceCode: string): Promise<void> {
    const [row] = await t.sql<{ id: string }>(`SELECT id FROM tenants WHERE slug = $1`, [new URL(issuer).pathname.split('/')[2]]);
    await tenantSql(t, row.id, `UPDATE oidc_payloads SET payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch FROM now())::int - 1)) WHERE model = 'DeviceCode' AND id = $1`, [deviceCode]);
  }
});
