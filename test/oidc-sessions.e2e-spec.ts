import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { expectError } from './support/contract';
import { createSector, createUser, ProvisionedTenant, provisionTenant, tenantSql, uniqueSlug } from './support/factories';
import { freePort } from './support/global-setup';
import { followToApp as followRedirectsToApp, localPath, startAuthorization } from './support/oidc-flow';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';
import { SoftAuthenticator } from './support/webauthn-crafting';

/**
 * The OpenID Provider's sessions and grants over HTTP (a supertest agent as the
 * browser, `openid-client` as the app): consent for third-party apps (asked once,
 * remembered across browsers, asked again on `prompt=consent`, declinable), the
 * user's list of apps and revoking one, RP-initiated logout with a back-channel
 * receiver, and the service's own sign-outs (revoking a session, signing out, a
 * password change, deleting the user) ending the provider sessions they started;
 * and sign-ins through MFA and a passkey, as the ID token's `amr` records them.
 */

const dynamicImport = (name: string): Promise<any> => import(name);
const FAILED_PRECONDITION = 9;
const NOT_FOUND = 5;
const REDIRECT_URI = 'https://app.example.com/cb';
const POST_LOGOUT_URI = 'https://app.example.com/signed-out';
const PASSWORD = 'correct horse battery staple';
const RP_ID = 'localhost';
const ORIGIN = 'http://localhost:4010';

/** Decodes a JWT's payload (the signature is checked where it matters, with the issuer's keys). */
const payloadOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());

describe('OpenID Provider: consent, app grants, logout and the end of sessions', () => {
  let t: TestApp;
  let oc: any;
  let jose: any;
  let a: ProvisionedTenant;
  let sector: string;
  let issuer: string;
  let receiver: Server;
  let backchannelUri: string;
  /** Logout tokens the back-channel receiver got, in order. */
  const logoutTokens: string[] = [];
  /** A first-party app with back-channel logout, and a third-party one. */
  let firstParty: { config: any; clientId: string };
  let thirdParty: { config: any; clientId: string };

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const local = localPath;

  async function newUser(name: string): Promise<{ sub: string; username: string }> {
    const username = `${name}-${uniqueSlug('u')}`;
    const sub = await createUser(t, a.adminToken, sector, { username, email: `${username}@example.com`, password: PASSWORD, profile: { emailVerified: true } });
    return { sub, username };
  }

  /** An app made through the admin API; answers its openid-client configuration. */
  async function app(name: string, extra: Record<string, unknown>): Promise<{ config: any; clientId: string }> {
    const res = await t
      .http()
      .post(`/api/v1/sectors/${sector}/oidc/clients`)
      .set(bearer(a.adminToken))
      .send({ clientName: name, redirectURIs: [REDIRECT_URI], grantTypes: ['authorization_code', 'refresh_token'], ...extra });
    if (res.status !== 201 && res.status !== 200) throw new Error(`app creation failed: ${res.status} ${JSON.stringify(res.body)}`);
    const config = await oc.discovery(new URL(issuer), res.body.client.clientID, res.body.clientSecret, undefined, { execute: [oc.allowInsecureRequests] });
    return { config, clientId: res.body.client.clientID };
  }

  const authorize = (agent: request.Agent, conf: any, params: Record<string, string> = {}) => startAuthorization(oc, agent, conf, REDIRECT_URI, { scope: 'openid email', ...params });
  const followToApp = (agent: request.Agent, next: string) => followRedirectsToApp(agent, t.baseUrl, REDIRECT_URI, next);

  const complete = (agent: request.Agent, interaction: string, token: string, body?: Record<string, unknown>) =>
    agent.post(`/api/v1/oidc/interactions/${interaction}/complete`).set(bearer(token)).send(body ?? {});

  /** A whole sign-in of `token`'s user to `target` in a new browser (consenting when asked); answers the tokens and the browser. */
  async function signInTo(target: { config: any }, token: string, params: Record<string, string> = {}, consent = false) {
    const agent = request.agent(t.baseUrl);
    const started = await authorize(agent, target.config, params);
    const done = await complete(agent, started.interaction, token, consent ? { consent: true } : undefined);
    if (done.status !== 200) throw new Error(`complete: ${done.status} ${JSON.stringify(done.body)}`);
    const callback = await followToApp(agent, done.body.redirectTo);
    const tokens = await oc.authorizationCodeGrant(target.config, callback, { pkceCodeVerifier: started.codeVerifier, expectedState: started.state, expectedNonce: started.nonce });
    return { tokens, agent };
  }

  /** What the provider says of a token now. */
  const introspect = (target: { config: any }, token: string) => oc.tokenIntrospection(target.config, token);

  beforeAll(async () => {
    oc = await dynamicImport('openid-client');
    jose = await dynamicImport('jose');
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const token = new URLSearchParams(Buffer.concat(chunks).toString()).get('logout_token');
        if (token) logoutTokens.push(token);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    backchannelUri = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/backchannel`;
    const port = await freePort();
    t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}`, ...NO_THROTTLE } });
    a = await provisionTenant(t);
    const slug = uniqueSlug('s');
    sector = await createSector(t, a.adminToken, slug, { domain: RP_ID, allowedOrigins: [ORIGIN] });
    issuer = `${t.baseUrl}/oidc/${a.slug}/${slug}`;
    firstParty = await app('Billing', { backchannelLogoutURI: backchannelUri, postLogoutRedirectURIs: [POST_LOGOUT_URI] });
    thirdParty = await app('Partner', { firstParty: false, backchannelLogoutURI: backchannelUri });
  });

  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  });

  /** The logout tokens received after `from`, once `count` arrived, verified with the issuer's keys. */
  async function logoutTokensAfter(from: number, count: number): Promise<Array<Record<string, any>>> {
    await eventually(() => logoutTokens.length >= from + count, 10_000, 'logout tokens');
    const jwks = jose.createRemoteJWKSet(new URL(`${issuer}/jwks`));
    return Promise.all(logoutTokens.slice(from).map(async (token) => (await jose.jwtVerify(token, jwks, { issuer })).payload));
  }

  describe('consent for third-party apps', () => {
    it('asks once, remembers it in another browser, asks again on prompt=consent, and lets the user decline', async () => {
      const user = await newUser('carol');
      const token = await t.login(user.username, PASSWORD, sector);

      const agent = request.agent(t.baseUrl);
      const started = await authorize(agent, thirdParty.config);
      const details = await agent.get(`/api/v1/oidc/interactions/${started.interaction}`).set('Accept', 'application/json');
      expect(details.body.client).toMatchObject({ clientName: 'Partner', firstParty: false });
      expectError(await complete(agent, started.interaction, token), 400, FAILED_PRECONDITION, 'OIDC_CONSENT_REQUIRED');
      const consented = await complete(agent, started.interaction, token, { consent: true });
      expect(consented.status).toBe(200);
      const callback = await followToApp(agent, consented.body.redirectTo);
      const tokens = await oc.authorizationCodeGrant(thirdParty.config, callback, { pkceCodeVerifier: started.codeVerifier, expectedState: started.state, expectedNonce: started.nonce });
      expect(tokens.claims()).toMatchObject({ sub: user.sub, email: `${user.username}@example.com` });

      // Another browser, the same scopes: no consent asked.
      const again = await signInTo(thirdParty, await t.login(user.username, PASSWORD, sector));
      expect(again.tokens.claims()?.sub).toBe(user.sub);

      // More than was granted, or prompt=consent: asked again.
      for (const params of [{ scope: 'openid email profile' }, { prompt: 'consent' }] as Array<Record<string, string>>) {
        const other = request.agent(t.baseUrl);
        const more = await authorize(other, thirdParty.config, params);
        expectError(await complete(other, more.interaction, token), 400, FAILED_PRECONDITION, 'OIDC_CONSENT_REQUIRED');
      }

      // Declining: the app hears access_denied; only the browser that started the request can decline it.
      const declining = request.agent(t.baseUrl);
      const declined = await authorize(declining, thirdParty.config, { scope: 'openid email phone' });
      expectError(await request(t.baseUrl).post(`/api/v1/oidc/interactions/${declined.interaction}/deny`), 403, 7, 'OIDC_INTERACTION_OTHER_BROWSER');
      const denied = await declining.post(`/api/v1/oidc/interactions/${declined.interaction}/deny`);
      expect(denied.status).toBe(200);
      const back = await followToApp(declining, denied.body.redirectTo);
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('state')).toBe(declined.state);
      expect(back.searchParams.get('code')).toBeNull();
    });

    it('never asks for a first-party app, even on prompt=consent', async () => {
      const user = await newUser('dave');
      const { tokens } = await signInTo(firstParty, await t.login(user.username, PASSWORD, sector), { prompt: 'consent', scope: 'openid email offline_access' });
      expect(tokens.refresh_token).toEqual(expect.any(String));
    });
  });

  describe('the apps a user let in', () => {
    it('lists them for the user and admins, and revoking one ends its tokens and asks for consent again', async () => {
      const user = await newUser('erin');
      const token = await t.login(user.username, PASSWORD, sector);
      const { tokens } = await signInTo(thirdParty, token, { scope: 'openid email offline_access', prompt: 'consent' }, true);
      expect(tokens.refresh_token).toEqual(expect.any(String));
      await signInTo(firstParty, token, { scope: 'openid' });

      const list = await t.http().get(`/api/v1/users/${user.sub}/oidc/grants`).set(bearer(token));
      expect(list.status).toBe(200);
      expect(list.body.grants).toHaveLength(2);
      expect(list.body.grants).toEqual(expect.arrayContaining([
        {
          clientID: thirdParty.clientId,
          clientName: 'Partner',
          firstParty: false,
          scopes: expect.arrayContaining(['openid', 'email', 'offline_access']),
          claims: [],
          grantedAt: expect.any(String),
          expiresAt: expect.any(String),
        },
        expect.objectContaining({ clientID: firstParty.clientId, clientName: 'Billing', firstParty: true, scopes: ['openid'] }),
      ]));
      expect((await t.http().get(`/api/v1/users/${user.sub}/oidc/grants`).set(bearer(a.adminToken))).body).toEqual(list.body);
      const stranger = await newUser('mallory');
      expect((await t.http().get(`/api/v1/users/${user.sub}/oidc/grants`).set(bearer(await t.login(stranger.username, PASSWORD, sector)))).status).toBe(403);

      const revoked = await t.http().delete(`/api/v1/users/${user.sub}/oidc/grants/${thirdParty.clientId}`).set(bearer(token));
      expect({ status: revoked.status, body: revoked.body }).toEqual({ status: 200, body: { clientID: thirdParty.clientId } });
      await expect(oc.refreshTokenGrant(thirdParty.config, tokens.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
      expect(await introspect(thirdParty, tokens.access_token)).toEqual({ active: false });
      expect((await t.http().get(`/api/v1/users/${user.sub}/oidc/grants`).set(bearer(token))).body.grants.map((g: any) => g.clientID)).toEqual([firstParty.clientId]);
      expectError(await t.http().delete(`/api/v1/users/${user.sub}/oidc/grants/${thirdParty.clientId}`).set(bearer(token)), 404, NOT_FOUND, 'OIDC_GRANT_NOT_FOUND');

      const agent = request.agent(t.baseUrl);
      const next = await authorize(agent, thirdParty.config);
      expectError(await complete(agent, next.interaction, token), 400, FAILED_PRECONDITION, 'OIDC_CONSENT_REQUIRED');

      const audit = await t.http().get(`/api/v1/sectors/${sector}/audit-events`).query({ type: 'oidc_grant.revoked' }).set(bearer(a.adminToken));
      expect(audit.body.events[0]).toMatchObject({ type: 'oidc_grant.revoked', target: { kind: 'user', id: user.sub }, details: { clientID: thirdParty.clientId } });
    });
  });

  describe('logout', () => {
    it('RP-initiated logout ends the provider session: back to the registered URI with state, a logout token to the back-channel receiver', async () => {
      const user = await newUser('frank');
      const { tokens, agent } = await signInTo(firstParty, await t.login(user.username, PASSWORD, sector), { scope: 'openid offline_access', prompt: 'consent' });
      const sid = tokens.claims().sid;
      const before = logoutTokens.length;

      const url: URL = oc.buildEndSessionUrl(firstParty.config, { id_token_hint: tokens.id_token, post_logout_redirect_uri: POST_LOGOUT_URI, state: 'bye' });
      const page = await agent.get(local(url.href));
      expect(page.status).toBe(200);
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.text)?.[1];
      expect(xsrf).toEqual(expect.any(String));
      const confirmed = await agent.post(`${new URL(issuer).pathname}/session/end/confirm`).type('form').send({ xsrf, logout: 'yes' });
      expect(confirmed.status).toBe(303);
      const back = new URL(confirmed.headers.location);
      expect(`${back.origin}${back.pathname}`).toBe(POST_LOGOUT_URI);
      expect(back.searchParams.get('state')).toBe('bye');

      const [logout] = await logoutTokensAfter(before, 1);
      expect(logout).toMatchObject({ iss: issuer, aud: firstParty.clientId, sub: user.sub, sid, events: { 'http://schemas.openid.net/event/backchannel-logout': {} } });
      expect(logout.nonce).toBeUndefined();
      // The provider session is gone; an offline_access grant outlives it (OpenID Connect Core §11), a session-bound one does not.
      expect(await tenantSql(t, a.tenantID, `SELECT 1 FROM oidc_payloads WHERE model = 'Session' AND account_id = $1`, [user.sub])).toEqual([]);
      expect((await oc.refreshTokenGrant(firstParty.config, tokens.refresh_token)).refresh_token).toEqual(expect.any(String));

      // A post-logout URI that is not registered is refused.
      const wrong: URL = oc.buildEndSessionUrl(firstParty.config, { id_token_hint: tokens.id_token, post_logout_redirect_uri: 'https://evil.example.com/', state: 'x' });
      const refused = await request(t.baseUrl).get(local(wrong.href));
      expect(refused.status).toBe(400);
      expect(refused.headers.location).toBeUndefined();
    });

    it('revoking the service session, or signing out, ends the provider sessions it started', async () => {
      const user = await newUser('grace');
      for (const end of ['revoke', 'logout'] as const) {
        const token = await t.login(user.username, PASSWORD, sector);
        const sessionId = payloadOf(token).sid as string;
        const { tokens } = await signInTo(firstParty, token, { scope: 'openid offline_access', prompt: 'consent' });
        const sid = tokens.claims().sid;
        // Another session of the same user, with its own provider session, is untouched.
        const otherToken = await t.login(user.username, PASSWORD, sector);
        const other = await signInTo(firstParty, otherToken, { scope: 'openid offline_access', prompt: 'consent' });
        const before = logoutTokens.length;

        const res =
          end === 'revoke'
            ? await t.http().delete(`/api/v1/users/${user.sub}/sessions/${sessionId}`).set(bearer(a.adminToken))
            : await t.http().post('/api/v1/logout').set(bearer(token));
        expect(res.status).toBe(200);
        await expect(oc.refreshTokenGrant(firstParty.config, tokens.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
        expect(await introspect(firstParty, tokens.access_token)).toEqual({ active: false });
        const [logout] = await logoutTokensAfter(before, 1);
        expect(logout).toMatchObject({ sub: user.sub, sid, aud: firstParty.clientId });

        expect(await introspect(firstParty, other.tokens.access_token)).toMatchObject({ active: true, sub: user.sub });
        expect((await oc.refreshTokenGrant(firstParty.config, other.tokens.refresh_token)).refresh_token).toEqual(expect.any(String));
      }
    });

    it('a password change ends the provider sessions of the other sessions; deleting the user ends all and forgets the grants', async () => {
      const user = await newUser('heidi');
      const own = await t.login(user.username, PASSWORD, sector);
      const kept = await signInTo(firstParty, own, { scope: 'openid offline_access', prompt: 'consent' });
      const elsewhere = await signInTo(firstParty, await t.login(user.username, PASSWORD, sector), { scope: 'openid offline_access', prompt: 'consent' });
      const before = logoutTokens.length;

      const changed = await t.http().post(`/api/v1/users/${user.sub}/password`).set(bearer(own)).send({ currentPassword: PASSWORD, newPassword: 'another horse battery staple' });
      expect(changed.status).toBe(200);
      await expect(oc.refreshTokenGrant(firstParty.config, elsewhere.tokens.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
      expect(await introspect(firstParty, kept.tokens.access_token)).toMatchObject({ active: true });
      const [logout] = await logoutTokensAfter(before, 1);
      expect(logout).toMatchObject({ sub: user.sub, sid: elsewhere.tokens.claims().sid });

      const third = await signInTo(thirdParty, own, { scope: 'openid email' }, true);
      const afterChange = logoutTokens.length;
      expect((await t.http().delete(`/api/v1/users/${user.sub}`).set(bearer(a.adminToken))).status).toBe(200);
      for (const tokens of [kept.tokens, third.tokens]) expect(await introspect(firstParty, tokens.access_token)).toEqual({ active: false });
      await expect(oc.refreshTokenGrant(firstParty.config, kept.tokens.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
      const ended = await logoutTokensAfter(afterChange, 2);
      expect(ended.map((l) => l.aud).sort()).toEqual([firstParty.clientId, thirdParty.clientId].sort());
      // Nothing of theirs is left: sessions, grants and tokens are gone.
      const [left] = await tenantSql(t, a.tenantID, 'SELECT count(*)::int AS n FROM oidc_payloads WHERE account_id = $1', [user.sub]);
      expect(left.n).toBe(0);
    });
  });

  describe('a disabled user', () => {
    it('loses the provider sessions and tokens at once, with logout tokens, and does not get them back when enabled', async () => {
      const user = await newUser('ken');
      const { tokens } = await signInTo(firstParty, await t.login(user.username, PASSWORD, sector), { scope: 'openid offline_access', prompt: 'consent' });
      const before = logoutTokens.length;
      expect((await t.http().put(`/api/v1/users/${user.sub}`).set(bearer(a.adminToken)).send({ disabled: true })).status).toBe(200);
      await expect(oc.refreshTokenGrant(firstParty.config, tokens.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
      expect(await introspect(firstParty, tokens.access_token)).toEqual({ active: false });
      const [logout] = await logoutTokensAfter(before, 1);
      expect(logout).toMatchObject({ sub: user.sub, sid: tokens.claims().sid });
      expect((await t.http().put(`/api/v1/users/${user.sub}`).set(bearer(a.adminToken)).send({ disabled: false })).status).toBe(200);
      await expect(oc.refreshTokenGrant(firstParty.config, tokens.refresh_token)).rejects.toMatchObject({ error: 'invalid_grant' });
    });
  });

  describe('sign-ins with more than a password', () => {
    let otplib: any;

    beforeAll(async () => {
      otplib = await dynamicImport('otplib');
      const settings = await t.http().put(`/api/v1/sectors/${sector}/settings`).set(bearer(a.adminToken)).send({ WebAuthnRPID: RP_ID, WebAuthnRPOrigins: [ORIGIN], WebAuthnRPDisplayName: 'OP' });
      expect(settings.status).toBe(200);
    });

    it('records a password and one-time-code sign-in as amr ["pwd", "otp", "mfa"]', async () => {
      const user = await newUser('ivan');
      const token = await t.login(user.username, PASSWORD, sector);
      const created = await t.http().post(`/api/v1/users/${user.sub}/otp-registrations`).set(bearer(a.adminToken)).send({ type: 'totp' });
      expect(created.status).toBe(200);
      // A code of the previous step verifies the factor; the sign-in uses the current one.
      const code = (epoch: number) => otplib.generate({ secret: created.body.secret, epoch });
      const left = 30 - ((Date.now() / 1000) % 30);
      if (left < 10) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 300));
      const now = Math.floor(Date.now() / 1000);
      const verified = await t.http().post(`/api/v1/users/${user.sub}/otp-registrations/${created.body.registrationID}/verify`).set(bearer(token)).send({ code: await code(now - 30) });
      expect(verified.status).toBe(200);

      const first = await t.http().post('/api/v1/login/password').send({ username: user.username, password: PASSWORD, sectorID: sector });
      expect(first.body).toMatchObject({ status: 'MFA_REQUIRED', challengeType: 'OTP' });
      const { transactionID } = first.body;
      expect((await t.http().post('/api/v1/login/otp/begin').send({ transactionID, sectorID: sector })).status).toBe(200);
      const done = await t.http().post('/api/v1/login/otp').send({ transactionID, code: await code(now), sectorID: sector });
      expect(done.body.status).toBe('SUCCESS');

      const { tokens } = await signInTo(firstParty, done.body.token);
      expect(tokens.claims()).toMatchObject({ sub: user.sub, amr: expect.arrayContaining(['pwd', 'otp', 'mfa']) });
    });

    it('records a passkey sign-in as amr ["hwk", "mfa"]', async () => {
      const user = await newUser('judy');
      const token = await t.login(user.username, PASSWORD, sector);
      const key = new SoftAuthenticator();
      const begin = await t.http().post('/api/v1/webauthn/registration/begin').set(bearer(token)).send({ keyName: 'Soft key' });
      expect(begin.status).toBe(200);
      const finish = await t
        .http()
        .post('/api/v1/webauthn/registration/finish')
        .set(bearer(token))
        .send({ transactionID: begin.body.transactionID, ...key.attestation({ challenge: begin.body.options.challenge, origin: ORIGIN, rpId: RP_ID }) });
      expect(finish.status).toBe(200);

      const loginBegin = await t.http().post('/api/v1/login/webauthn/begin').send({ username: user.username, sectorID: sector });
      expect(loginBegin.status).toBe(200);
      const challenge = loginBegin.body.credentialAssertion.publicKey.challenge;
      const signedIn = await t
        .http()
        .post('/api/v1/login/webauthn/finish')
        .send({ sectorID: sector, transactionID: loginBegin.body.transactionID, username: user.username, ...key.assertion({ challenge, origin: ORIGIN, rpId: RP_ID, counter: 1 }) });
      expect(signedIn.body.status).toBe('SUCCESS');

      const { tokens } = await signInTo(firstParty, signedIn.body.token);
      const amr = tokens.claims().amr as string[];
      expect(amr).not.toContain('pwd');
      expect(amr).toEqual(expect.arrayContaining(['hwk', 'mfa']));
    });
  });
});
