/**
 * Social login (docs/api.md, Social login; operations 9 and 17, the callback,
 * the token exchange, linked identities): a real OpenID provider
 * (`oidc-provider` on 127.0.0.1) plays the generic `oidc` provider end to end
 * over HTTP — initiate, the provider's authorization and interactions, the
 * callback, the redirect with a single-use code, the exchange (code + the
 * initiating browser's verifier), the token at work — for a login
 * that links by verified email, one that creates the user, one refused for an
 * unverified email, and one found again by the linked subject. GitHub (OAuth
 * app and GitHub App) and Apple are played by small local servers that check
 * what the service sends (PKCE verifier, app JWT, client-secret JWT). Then the
 * refusals: disabled provider, foreign redirect origins, replayed, unknown,
 * foreign and expired states, ID tokens with a wrong nonce or audience; and no
 * response ever carries a provider secret.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { expectWireError, JWT, TRANSACTION_ID, UNIX } from './support/contract';
import { createSector, createUser, provisionTenant, ProvisionedTenant, tenantSql } from './support/factories';
import { FakeApple, FakeGitHub, startFakeApple, startFakeGitHub } from './support/fake-oauth-servers';
import { OidcIdp, startOidcIdp } from './support/oidc-idp';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

type Res = { status: number; body: any; headers: Record<string, string> };

const ORIGIN = 'https://shop.acme.test';
const RETURN_TO = `${ORIGIN}/after-login`;
const tag = randomBytes(3).toString('hex');
const email = (name: string) => `${name}.${tag}@example.test`;
const dynamicImport = (name: string): Promise<any> => import(name);

const APPLE_CLIENT_ID = 'test.acme.shop.signin';
const APPLE_TEAM = 'TEAM123456';
const APPLE_KEY_ID = 'KEY7654321';
const GITHUB_APP_ID = '424242';
const appleKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const githubAppKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
const applePem = appleKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const githubAppPem = githubAppKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const GITHUB_SECRET = 'github-client-secret-abcdef0123456789';

describe('social login', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let idp: OidcIdp;
  let gh: FakeGitHub;
  let apple: FakeApple;
  /** Sector with every provider configured, self sign-up on. */
  let S: string;
  /** Sector without providers, self sign-up off. */
  let S2: string;
  /** Every response body seen, to check that no secret ever appears. */
  const seen: string[] = [];

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const record = (res: Res): Res => {
    seen.push(JSON.stringify(res.body ?? ''), JSON.stringify(res.headers ?? {}));
    return res;
  };
  const putProviders = async (sectorID: string, providers: Record<string, unknown>, token = a.adminToken) =>
    record(await t.http().put(`/api/v1/sectors/${sectorID}/oauth/providers`).set(bearer(token)).send({ providers }));
  const getProviders = async (sectorID: string, token = a.adminToken) => record(await t.http().get(`/api/v1/sectors/${sectorID}/oauth/providers`).set(bearer(token)));
  const initiate = async (provider: string, body: Record<string, unknown>) => record(await t.http().post(`/api/v1/oauth/${provider}/initiate`).send(body));
  const callback = async (provider: string, query: Record<string, string>) => record(await t.http().get(`/api/v1/oauth/${provider}/callback`).query(query).redirects(0));
  const exchange = async (code: string, verifier: string) => record(await t.http().post('/api/v1/oauth/token').send({ code, verifier }));
  /** The OAuth state initiate put in the authorization URL. */
  const stateOf = (init: Res) => new URL(init.body.authURL).searchParams.get('state')!;
  /** The single-use code a callback redirect carried. */
  const codeOf = (cb: Res) => new URL(cb.headers.location).searchParams.get('code')!;
  /** The exchange as the browser that started the flow makes it. */
  const collect = (init: Res, cb: Res) => exchange(codeOf(cb), init.body.verifier);

  /** Initiate → the IdP's authorization and interactions → the service's callback; answers the callback's response. */
  async function oidcFlow(account: string, sectorID = S): Promise<{ init: Res; cb: Res }> {
    const init = await initiate('oidc', { sectorID, redirectURI: RETURN_TO });
    expect(init.status).toBe(200);
    idp.useAccount(account);
    const answer = await idp.authorize(init.body.authURL);
    expect(`${answer.origin}${answer.pathname}`).toBe(`${t.baseUrl}/api/v1/oauth/oidc/callback`);
    const cb = await callback('oidc', Object.fromEntries(answer.searchParams));
    return { init, cb };
  }

  function location(res: Res): URL {
    expect(res.status).toBe(302);
    const url = new URL(res.headers.location);
    expect(`${url.origin}${url.pathname}`).toBe(RETURN_TO);
    return url;
  }

  beforeAll(async () => {
    gh = await startFakeGitHub();
    apple = await startFakeApple(APPLE_CLIENT_ID);
    t = await startTestApp({ env: { ...NO_THROTTLE, OAUTH_GITHUB_BASE_URL: gh.base, OAUTH_GITHUB_API_BASE_URL: gh.base, OAUTH_APPLE_BASE_URL: apple.base } });
    idp = await startOidcIdp([`${t.baseUrl}/api/v1/oauth/oidc/callback`]);
    idp.accounts.set('idp-verified', { sub: 'idp-verified', email: email('linked'), email_verified: true, name: 'Linked Person' });
    idp.accounts.set('idp-new', { sub: 'idp-new', email: email('newcomer'), email_verified: true, name: 'New Comer' });
    idp.accounts.set('idp-unverified', { sub: 'idp-unverified', email: email('victim'), email_verified: false, name: 'Not Really Victim' });
    a = await provisionTenant(t);
    S = await createSector(t, a.adminToken, undefined, { allowedOrigins: [ORIGIN] });
    S2 = await createSector(t, a.adminToken, undefined, { allowedOrigins: [ORIGIN] });
    const settings = await t.http().put(`/api/v1/sectors/${S}/settings`).set(bearer(a.adminToken)).send({ SelfSignUpAllowed: true });
    expect(settings.status).toBe(200);
  });

  afterAll(async () => {
    await idp?.close();
    await gh?.close();
    await apple?.close();
    await t?.close();
  });

  describe('provider configuration (operation 9)', () => {
    it('stores the providers, answers {status, message}, and reads back without secrets', async () => {
      const res = await putProviders(S, {
        oidc: { enabled: true, clientID: idp.clientId, clientSecret: idp.clientSecret, issuerURL: idp.issuer, redirectURI: `${t.baseUrl}/api/v1/oauth/oidc/callback` },
        github: { enabled: true, clientID: 'gh-client', clientSecret: GITHUB_SECRET, redirectURI: `${t.baseUrl}/api/v1/oauth/github/callback` },
        apple: { enabled: true, clientID: APPLE_CLIENT_ID, teamID: APPLE_TEAM, keyID: APPLE_KEY_ID, privateKeyPEM: applePem, redirectURI: `${t.baseUrl}/api/v1/oauth/apple/callback` },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'OK', message: expect.any(String) });

      const read = await getProviders(S);
      expect(read.status).toBe(200);
      expect(read.body.providers).toEqual({
        oidc: { enabled: true, clientID: idp.clientId, clientSecretSet: true, teamID: '', keyID: '', privateKeyPEMSet: false, redirectURI: `${t.baseUrl}/api/v1/oauth/oidc/callback`, issuerURL: idp.issuer, appID: '' },
        github: { enabled: true, clientID: 'gh-client', clientSecretSet: true, teamID: '', keyID: '', privateKeyPEMSet: false, redirectURI: `${t.baseUrl}/api/v1/oauth/github/callback`, issuerURL: '', appID: '' },
        apple: { enabled: true, clientID: APPLE_CLIENT_ID, clientSecretSet: false, teamID: APPLE_TEAM, keyID: APPLE_KEY_ID, privateKeyPEMSet: true, redirectURI: `${t.baseUrl}/api/v1/oauth/apple/callback`, issuerURL: '', appID: '' },
      });
      // Sealed at rest.
      const rows = await tenantSql(t, a.tenantID, 'SELECT provider, client_secret_sealed, private_key_sealed FROM oauth_providers WHERE sector_id = $1', [S]);
      for (const row of rows) {
        for (const v of [row.client_secret_sealed, row.private_key_sealed]) if (v !== null) expect(String(v)).toMatch(/^v2\./);
      }
    });

    it('merges: absent providers and fields keep their values, an empty secret keeps the stored one', async () => {
      const before = await tenantSql(t, a.tenantID, `SELECT client_secret_sealed FROM oauth_providers WHERE sector_id = $1 AND provider = 'oidc'`, [S]);
      expect((await putProviders(S, { oidc: { clientSecret: '' } })).status).toBe(200);
      const after = await tenantSql(t, a.tenantID, `SELECT client_secret_sealed FROM oauth_providers WHERE sector_id = $1 AND provider = 'oidc'`, [S]);
      expect(after).toEqual(before);
      const read = await getProviders(S);
      expect(Object.keys(read.body.providers).sort()).toEqual(['apple', 'github', 'oidc']);
      expect(read.body.providers.oidc.clientSecretSet).toBe(true);
      expect(read.body.providers.apple.privateKeyPEMSet).toBe(true);
    });

    it('validates at save time, naming providers.<name>.<field>', async () => {
      const res = await putProviders(S2, {
        apple: { enabled: true, clientID: 'x', privateKeyPEM: githubAppPem, redirectURI: 'not a url' },
        oidc: { enabled: true, clientID: 'x', redirectURI: `${t.baseUrl}/cb`, issuerURL: 'relative/path' },
        github: { enabled: true, clientID: 'x', appID: '1', privateKeyPEM: applePem, redirectURI: `${t.baseUrl}/cb` },
        myspace: { enabled: true },
      });
      expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['providers.myspace'] });
      const res2 = await putProviders(S2, {
        apple: { enabled: true, clientID: 'x', privateKeyPEM: githubAppPem, redirectURI: 'not a url' },
        oidc: { enabled: true, clientID: 'x', redirectURI: `${t.baseUrl}/cb`, issuerURL: 'relative/path' },
        github: { enabled: true, clientID: 'x', appID: '1', privateKeyPEM: applePem, redirectURI: `${t.baseUrl}/cb` },
      });
      expectWireError(res2, 400, 3, 'VALIDATION_FAILED', {
        fields: ['providers.apple.privateKeyPEM', 'providers.apple.redirectURI', 'providers.apple.teamID', 'providers.apple.keyID', 'providers.oidc.issuerURL', 'providers.github.privateKeyPEM'],
      });
      expectWireError(await putProviders(S2, { apple: { privateKeyPEM: '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----' } }), 400, 3, 'VALIDATION_FAILED', {
        fields: ['providers.apple.privateKeyPEM'],
      });
      expect((await getProviders(S2)).body).toEqual({ providers: {} });
    });

    it('is for signed-in admins: API tokens and ordinary users are refused', async () => {
      const minted = await t.http().post(`/api/v1/sectors/${S}/tokens`).set(bearer(a.adminToken)).send({ name: 'ci' });
      expect(minted.status).toBe(200);
      expectWireError(await putProviders(S, { oidc: { enabled: false } }, minted.body.token), 403, 7, 'ROLE_REQUIRED');
      expectWireError(await getProviders(S, minted.body.token), 403, 7, 'ROLE_REQUIRED');
      const sub = await createUser(t, a.adminToken, S, { email: email('plain'), password: 'plain-user-password' });
      expect(sub).toBeTruthy();
      const userToken = await t.login(email('plain'), 'plain-user-password', S);
      expectWireError(await getProviders(S, userToken), 403, 7, 'ROLE_REQUIRED');
    });
  });

  describe('the generic OpenID provider, end to end', () => {
    let linkedSub: string;

    it('links an existing user by verified email: initiate → IdP → callback → redirect → token → the token works', async () => {
      linkedSub = await createUser(t, a.adminToken, S, { email: email('linked'), password: 'linked-user-password', profile: { emailVerified: true } });
      const init = await initiate('oidc', { sectorID: S, redirectURI: RETURN_TO });
      expect(init.status).toBe(200);
      expect(init.body).toEqual({ authURL: expect.any(String), transactionID: expect.stringMatching(TRANSACTION_ID), verifier: expect.stringMatching(/^[\w-]{43}$/) });
      const auth = new URL(init.body.authURL);
      expect(auth.origin).toBe(idp.issuer);
      expect(auth.searchParams.get('redirect_uri')).toBe(`${t.baseUrl}/api/v1/oauth/oidc/callback`);
      // The state is the transaction id (operation 17), never the verifier.
      expect(auth.searchParams.get('state')).toBe(init.body.transactionID);
      expect(auth.searchParams.get('state')).not.toBe(init.body.verifier);
      expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
      expect(auth.searchParams.get('nonce')).toEqual(expect.any(String));
      expect(auth.searchParams.get('client_id')).toBe(idp.clientId);
      // The verifier and nonce stay in the transaction's internal data.
      expect(JSON.stringify(init.body)).not.toContain('codeVerifier');

      idp.useAccount('idp-verified');
      const answer = await idp.authorize(init.body.authURL);
      const cb = await callback('oidc', Object.fromEntries(answer.searchParams));
      const back = location(cb);
      expect(Object.fromEntries(back.searchParams)).toEqual({ transactionID: init.body.transactionID, code: expect.stringMatching(TRANSACTION_ID) });
      expect([init.body.transactionID, auth.searchParams.get('state')]).not.toContain(codeOf(cb));
      expect(cb.headers.location).not.toMatch(/token=|eyJ/);

      const token = await collect(init, cb);
      expect(token.status).toBe(200);
      expect(token.body).toEqual(expect.objectContaining({ transactionID: init.body.transactionID, status: 'SUCCESS', challengeType: '', token: expect.stringMatching(JWT) }));
      const me = await t.http().get(`/api/v1/users/${linkedSub}`).set(bearer(token.body.token));
      expect(me.status).toBe(200);
      expect(me.body.sub).toBe(linkedSub);

      // The exchange works once.
      expectWireError(await collect(init, cb), 400, 9, 'OAUTH_RESULT_BINDING_INVALID', { metadata: {} });
      // The identity is linked.
      const ids = await t.http().get(`/api/v1/users/${linkedSub}/identities`).set(bearer(token.body.token));
      expect(ids.status).toBe(200);
      expect(ids.body.identities).toEqual([{ id: expect.any(String), provider: 'oidc', issuer: idp.issuer, subject: 'idp-verified', email: email('linked'), createdAt: expect.stringMatching(UNIX), lastUsedAt: '0' }]);
    });

    it('finds the user again by the linked subject', async () => {
      const { init, cb } = await oidcFlow('idp-verified');
      expect(Object.fromEntries(location(cb).searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), code: expect.any(String) });
      const token = await collect(init, cb);
      expect(token.body.status).toBe('SUCCESS');
      const me = await t.http().get(`/api/v1/users/${linkedSub}`).set(bearer(token.body.token));
      expect(me.status).toBe(200);
    });

    it('creates the user on a first login where SelfSignUpAllowed (email verified as the provider says)', async () => {
      const { init, cb } = await oidcFlow('idp-new');
      expect(Object.fromEntries(location(cb).searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), code: expect.any(String) });
      const token = await collect(init, cb);
      expect(token.body.status).toBe('SUCCESS');
      const sub = JSON.parse(Buffer.from(token.body.token.split('.')[1], 'base64url').toString()).sub as string;
      const me = await t.http().get(`/api/v1/users/${sub}`).set(bearer(token.body.token));
      expect(me.status).toBe(200);
      expect(me.body.email).toBe(email('newcomer'));
      expect(me.body.emailVerified ?? me.body.profile?.emailVerified).toBe(true);
      // A self sign-up like any other: its user.created event (no caller), which webhooks and the sign-up figures read.
      const audit = await t.http().get(`/api/v1/sectors/${S}/audit-events`).query({ type: 'user.created', target: sub }).set(bearer(a.adminToken));
      expect(audit.status).toBe(200);
      expect(audit.body.events).toEqual([
        expect.objectContaining({ type: 'user.created', outcome: 'success', actor: expect.objectContaining({ kind: 'anonymous' }), details: { isAdmin: false, invited: false, provider: 'oidc' } }),
      ]);
    });

    it('refuses an unverified email that matches a user (no takeover), redirecting with error', async () => {
      await createUser(t, a.adminToken, S, { email: email('victim'), password: 'victim-user-password' });
      const { cb } = await oidcFlow('idp-unverified');
      expect(Object.fromEntries(location(cb).searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), error: 'SOCIAL_EMAIL_UNVERIFIED' });
      expect(await tenantSql(t, a.tenantID, `SELECT 1 FROM linked_identities WHERE subject = 'idp-unverified'`)).toEqual([]);
    });

    it('refuses a new user where self sign-up is off', async () => {
      expect((await putProviders(S2, { oidc: { enabled: true, clientID: idp.clientId, clientSecret: idp.clientSecret, issuerURL: idp.issuer, redirectURI: `${t.baseUrl}/api/v1/oauth/oidc/callback` } })).status).toBe(200);
      idp.accounts.set('idp-s2', { sub: 'idp-s2', email: email('s2'), email_verified: true, name: 'S2' });
      const { cb } = await oidcFlow('idp-s2', S2);
      expect(location(cb).searchParams.get('error')).toBe('SIGNUP_NOT_ALLOWED');
    });

    it('refuses an ID token with a wrong nonce or audience', async () => {
      for (const [claim, value] of [
        ['nonce', 'not-the-nonce'],
        ['aud', 'another-client'],
      ] as const) {
        idp.tamper = (claims) => ({ ...claims, [claim]: value });
        try {
          const { init, cb } = await oidcFlow('idp-verified');
          expect(Object.fromEntries(location(cb).searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), error: 'OAUTH_EXCHANGE_FAILED' });
          expect((await tenantSql(t, a.tenantID, `SELECT data->'oauth' ? 'result' AS r FROM auth_transactions WHERE id = $1`, [init.body.transactionID]))[0].r).toBe(false);
        } finally {
          idp.tamper = undefined;
        }
      }
    });
  });

  describe('refusals', () => {
    it('a provider not enabled for the sector', async () => {
      expectWireError(await initiate('github', { sectorID: S2, redirectURI: RETURN_TO }), 400, 9, 'PROVIDER_NOT_ENABLED', { metadata: {} });
      expectWireError(await initiate('myspace', { sectorID: S, redirectURI: RETURN_TO }), 400, 9, 'PROVIDER_NOT_ENABLED', { metadata: {} });
      expect((await putProviders(S2, { oidc: { enabled: false } })).status).toBe(200);
      expectWireError(await initiate('oidc', { sectorID: S2, redirectURI: RETURN_TO }), 400, 9, 'PROVIDER_NOT_ENABLED', { metadata: {} });
    });

    it('a redirectURI whose origin is not exactly an allowed origin', async () => {
      for (const redirectURI of [
        'https://shop.acme.test.evil.com/after',
        'https://evil.com/https://shop.acme.test/',
        'http://shop.acme.test/after',
        'https://shop.acme.test:8443/after',
        'https://evil.shop.acme.test/after',
        'https://shop.acme.test@evil.com/',
        'javascript:alert(1)',
        '/relative',
      ]) {
        expectWireError(await initiate('oidc', { sectorID: S, redirectURI }), 400, 3, 'REDIRECT_URI_NOT_ALLOWED', { fields: ['redirectURI'], metadata: {} });
      }
    });

    it('unknown, replayed and foreign states; an expired transaction', async () => {
      expectWireError(await callback('oidc', { code: 'x', state: 'nope' }), 400, 9, 'OAUTH_STATE_INVALID', { metadata: {} });
      expectWireError(await callback('oidc', { code: 'x', state: randomBytes(48).toString('base64url') }), 400, 9, 'OAUTH_STATE_INVALID', { metadata: {} });

      // Replay: the callback of a completed flow, again.
      const { init, cb } = await oidcFlow('idp-verified');
      expect(location(cb).searchParams.get('error')).toBeNull();
      expectWireError(await callback('oidc', { code: 'replayed', state: stateOf(init) }), 400, 9, 'OAUTH_STATE_INVALID', { metadata: {} });
      // The transaction id is not a state.
      expectWireError(await callback('oidc', { code: 'x', state: init.body.transactionID }), 400, 9, 'OAUTH_STATE_INVALID', { metadata: {} });

      // Another provider's state.
      const gInit = await initiate('github', { sectorID: S, redirectURI: RETURN_TO });
      expect(gInit.status).toBe(200);
      expectWireError(await callback('oidc', { code: 'x', state: stateOf(gInit) }), 400, 9, 'OAUTH_STATE_INVALID', { metadata: {} });
      // …which stays usable for its own provider (a refusal claims nothing).
      expect((await tenantSql(t, a.tenantID, `SELECT data ? 'oauth' AS pending FROM auth_transactions WHERE id = $1`, [gInit.body.transactionID]))[0].pending).toBe(true);

      // Expired.
      const old = await initiate('oidc', { sectorID: S, redirectURI: RETURN_TO });
      await tenantSql(t, a.tenantID, `UPDATE auth_transactions SET expires_at = now() - interval '1 second' WHERE id = $1`, [old.body.transactionID]);
      expectWireError(await callback('oidc', { code: 'x', state: stateOf(old) }), 400, 9, 'TRANSACTION_EXPIRED', { metadata: {} });
    });

    it('the provider refusing (error=access_denied) goes back with error', async () => {
      const init = await initiate('oidc', { sectorID: S, redirectURI: RETURN_TO });
      const cb = await callback('oidc', { error: 'access_denied', state: stateOf(init) });
      expect(Object.fromEntries(location(cb).searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), error: 'OAUTH_PROVIDER_ERROR' });
    });

    it('an exchange of an unknown code, or of a too old result; the body is validated', async () => {
      expectWireError(await exchange('x'.repeat(64), 'y'.repeat(43)), 400, 9, 'OAUTH_RESULT_BINDING_INVALID', { metadata: {} });
      const { init, cb } = await oidcFlow('idp-verified');
      await tenantSql(t, a.tenantID, `UPDATE auth_transactions SET completed_at = now() - interval '3 minutes' WHERE id = $1`, [init.body.transactionID]);
      expectWireError(await collect(init, cb), 400, 9, 'OAUTH_RESULT_BINDING_INVALID', { metadata: {} });
      expectWireError(record(await t.http().post('/api/v1/oauth/token').send({ transactionID: init.body.transactionID })), 400, 3, 'VALIDATION_FAILED', { fields: ['code', 'verifier'] });
    });
  });

  describe('GitHub', () => {
    const ghUser = { id: 9001, login: 'octo', name: 'Octo Cat', emails: [
      { email: email('octo-secondary'), primary: false, verified: true },
      { email: email('octo'), primary: true, verified: true },
    ] };

    async function githubFlow(code: string) {
      const init = await initiate('github', { sectorID: S, redirectURI: RETURN_TO });
      expect(init.status).toBe(200);
      const auth = new URL(init.body.authURL);
      expect(`${auth.origin}${auth.pathname}`).toBe(`${gh.base}/login/oauth/authorize`);
      expect(auth.searchParams.get('redirect_uri')).toBe(`${t.baseUrl}/api/v1/oauth/github/callback`);
      expect(auth.searchParams.get('nonce')).toBeNull();
      gh.codes.set(code, ghUser);
      gh.requests.length = 0;
      const cb = await callback('github', { code, state: stateOf(init) });
      const tokenRequest = gh.requests.find((r) => r.path === '/login/oauth/access_token')!;
      expect(tokenRequest).toBeDefined();
      // PKCE: the verifier sent is the one the challenge was made from.
      expect(createHash('sha256').update(tokenRequest.form.code_verifier).digest('base64url')).toBe(auth.searchParams.get('code_challenge'));
      return { init, cb, tokenRequest };
    }

    it('an OAuth app: client secret, PKCE, the primary verified email; creates the user', async () => {
      const { init, cb, tokenRequest } = await githubFlow('gh-code-1');
      expect(tokenRequest.form).toEqual(expect.objectContaining({ client_id: 'gh-client', client_secret: GITHUB_SECRET, code: 'gh-code-1' }));
      expect(Object.fromEntries(location(cb).searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), code: expect.any(String) });
      const token = await collect(init, cb);
      expect(token.body.status).toBe('SUCCESS');
      const sub = JSON.parse(Buffer.from(token.body.token.split('.')[1], 'base64url').toString()).sub as string;
      const me = await t.http().get(`/api/v1/users/${sub}`).set(bearer(token.body.token));
      expect(me.body.email).toBe(email('octo'));
    });

    it('a GitHub App: an RS256 app JWT instead of the client secret', async () => {
      expect((await putProviders(S, { github: { appID: GITHUB_APP_ID, privateKeyPEM: githubAppPem } })).status).toBe(200);
      const { init, cb, tokenRequest } = await githubFlow('gh-code-2');
      expect(tokenRequest.form.client_secret).toBeUndefined();
      const jwt = String(tokenRequest.headers.authorization).replace(/^Bearer /, '');
      const jose = await dynamicImport('jose');
      const { payload, protectedHeader } = await jose.jwtVerify(jwt, githubAppKey.publicKey, { issuer: GITHUB_APP_ID, algorithms: ['RS256'] });
      expect(protectedHeader.alg).toBe('RS256');
      expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(600);
      expect(Object.fromEntries(location(cb).searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), code: expect.any(String) });
      expect((await collect(init, cb)).body.status).toBe('SUCCESS');
    });
  });

  describe('single use under concurrency', () => {
    it('of 6 concurrent callbacks with one state exactly one is accepted; of 6 token exchanges exactly one answers the token', async () => {
      const init = await initiate('github', { sectorID: S, redirectURI: RETURN_TO });
      gh.codes.set('gh-race', { id: 9002, login: 'racer', name: 'Racer', emails: [{ email: email('racer'), primary: true, verified: true }] });
      const callbacks = await Promise.all(Array.from({ length: 6 }, () => callback('github', { code: 'gh-race', state: stateOf(init) })));
      expect(callbacks.filter((r) => r.status === 302)).toHaveLength(1);
      for (const r of callbacks.filter((c) => c.status !== 302)) expectWireError(r, 400, 9, 'OAUTH_STATE_INVALID', { metadata: {} });
      const won = callbacks.find((r) => r.status === 302)!;
      expect(Object.fromEntries(location(won).searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), code: expect.any(String) });

      const exchanges = await Promise.all(Array.from({ length: 6 }, () => collect(init, won)));
      expect(exchanges.filter((r) => r.status === 200 && typeof r.body.token === 'string')).toHaveLength(1);
      for (const r of exchanges.filter((e) => e.status !== 200)) expectWireError(r, 400, 9, 'OAUTH_RESULT_BINDING_INVALID', { metadata: {} });
    });
  });

  describe('Apple', () => {
    it("exchanges the code with the ES256 client-secret JWT and verifies Apple's ID token", async () => {
      const init = await initiate('apple', { sectorID: S, redirectURI: RETURN_TO });
      expect(init.status).toBe(200);
      const auth = new URL(init.body.authURL);
      expect(`${auth.origin}${auth.pathname}`).toBe(`${apple.base}/auth/authorize`);
      expect(auth.searchParams.get('response_mode')).toBe('form_post');
      apple.codes.set('apple-code-1', { sub: 'apple-sub-1', email: email('apple'), email_verified: 'true', nonce: auth.searchParams.get('nonce')! });
      apple.requests.length = 0;
      // Apple posts the answer as a form (response_mode=form_post).
      const cb = record(
        await t
          .http()
          .post('/api/v1/oauth/apple/callback')
          .type('form')
          .send({ code: 'apple-code-1', state: stateOf(init), user: '{"name":{"firstName":"A"}}' })
          .redirects(0),
      );
      expect(Object.fromEntries(location(cb).searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), code: expect.any(String) });
      const tokenRequest = apple.requests.find((r) => r.path === '/auth/token')!;
      expect(createHash('sha256').update(tokenRequest.form.code_verifier).digest('base64url')).toBe(auth.searchParams.get('code_challenge'));
      const jose = await dynamicImport('jose');
      const { payload, protectedHeader } = await jose.jwtVerify(tokenRequest.form.client_secret, appleKey.publicKey, {
        issuer: APPLE_TEAM,
        audience: 'https://appleid.apple.com',
        subject: APPLE_CLIENT_ID,
        algorithms: ['ES256'],
      });
      expect(protectedHeader).toEqual(expect.objectContaining({ alg: 'ES256', kid: APPLE_KEY_ID }));
      expect(payload.exp).toBeGreaterThan(payload.iat!);
      expect((await collect(init, cb)).body.status).toBe('SUCCESS');
    });

    it('refuses an Apple ID token with a wrong nonce', async () => {
      const init = await initiate('apple', { sectorID: S, redirectURI: RETURN_TO });
      apple.codes.set('apple-code-2', { sub: 'apple-sub-1', email: email('apple'), email_verified: true, nonce: 'wrong-nonce' });
      const cb = await callback('apple', { code: 'apple-code-2', state: stateOf(init) });
      expect(location(cb).searchParams.get('error')).toBe('OAUTH_EXCHANGE_FAILED');
    });
  });

  describe('linked identities', () => {
    it('are listed and unlinked, but not the last way to sign in', async () => {
      // The user created by GitHub has no password and one identity (GitHub's subject 9001).
      const [row] = await tenantSql(t, a.tenantID, `SELECT user_id FROM linked_identities WHERE provider = 'github' AND subject = '9001'`);
      const sub = String(row.user_id);
      const list = await t.http().get(`/api/v1/users/${sub}/identities`).set(bearer(a.adminToken));
      expect(list.status).toBe(200);
      expect(list.body.identities).toHaveLength(1);
      const id = list.body.identities[0].id as string;
      expectWireError(await t.http().delete(`/api/v1/users/${sub}/identities/${id}`).set(bearer(a.adminToken)), 400, 9, 'LAST_SIGN_IN_METHOD', { metadata: {} });
      expectWireError(await t.http().delete(`/api/v1/users/${sub}/identities/${randomBytes(4).toString('hex')}`).set(bearer(a.adminToken)), 404, 5, 'IDENTITY_NOT_FOUND', { metadata: {} });

      // A user with a password may unlink.
      const [linked] = await tenantSql(t, a.tenantID, `SELECT id, user_id FROM linked_identities WHERE provider = 'oidc' AND subject = 'idp-verified'`);
      const res = await t.http().delete(`/api/v1/users/${String(linked.user_id)}/identities/${String(linked.id)}`).set(bearer(a.adminToken));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: linked.id });
      // API tokens may not.
      const minted = await t.http().post(`/api/v1/sectors/${S}/tokens`).set(bearer(a.adminToken)).send({ name: 'ci2' });
      expectWireError(await t.http().get(`/api/v1/users/${sub}/identities`).set(bearer(minted.body.token)), 403, 7, 'ROLE_REQUIRED');
    });
  });

  describe('multi-factor sectors', () => {
    it('a social login is a first factor: where MFA is required the flow continues (no token yet)', async () => {
      expect((await t.http().put(`/api/v1/sectors/${S2}/settings`).set(bearer(a.adminToken)).send({ MFARequired: true })).status).toBe(200);
      expect((await putProviders(S2, { oidc: { enabled: true } })).status).toBe(200);
      await createUser(t, a.adminToken, S2, { email: email('s2'), password: 's2-user-password', profile: { emailVerified: true } });
      const { init, cb } = await oidcFlow('idp-s2', S2);
      expect(Object.fromEntries(location(cb).searchParams)).toEqual({ transactionID: expect.stringMatching(TRANSACTION_ID), code: expect.any(String) });
      const result = await collect(init, cb);
      expect(result.status).toBe(200);
      expect(result.body).toEqual({ transactionID: init.body.transactionID, status: 'MFA_ENROLLMENT_REQUIRED', challengeType: 'EMAIL_OTP_ENROLLMENT' });
      const [tx] = await tenantSql(t, a.tenantID, 'SELECT status, factors FROM auth_transactions WHERE id = $1', [init.body.transactionID]);
      expect(tx).toEqual({ status: 'PENDING', factors: ['SOCIAL'] });
    });
  });

  describe('secrets', () => {
    it('no response ever carried a provider secret', () => {
      expect(seen.length).toBeGreaterThan(50);
      const all = seen.join('\n');
      for (const secret of [idp.clientSecret, GITHUB_SECRET, 'PRIVATE KEY', applePem.split('\n')[1], githubAppPem.split('\n')[1]]) expect(all).not.toContain(secret);
    });
  });
});
