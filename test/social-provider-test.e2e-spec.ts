/**
 * Testing a social provider (docs/api.md, Social login: Testing a provider) and
 * what an end user sees when a provider cannot be used
 * (SOCIAL_PROVIDER_UNAVAILABLE). A real OpenID provider (`oidc-provider` on
 * 127.0.0.1) is the good configuration; small local servers play the broken
 * ones: a closed port, a discovery answering 404, a discovery naming another
 * issuer, a key set without a usable key, a token endpoint that fails or
 * refuses the client. GitHub is the fake of the social-login spec.
 *
 * - The Test of a good configuration passes every check; each broken one fails
 *   the check it breaks, with an administrator's detail; an unsaved body is
 *   tested without being stored; no answer carries a secret; only the sector's
 *   signed-in admins may test.
 * - Initiate against an unreachable provider is 503 UNAVAILABLE /
 *   SOCIAL_PROVIDER_UNAVAILABLE with Retry-After and a message for the person
 *   signing in, naming neither the host nor the library's words; a callback
 *   whose token endpoint fails or refuses the client goes back with
 *   error=SOCIAL_PROVIDER_UNAVAILABLE, a bad code still with
 *   error=OAUTH_EXCHANGE_FAILED.
 */
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectWireError } from './support/contract';
import { createSector, createUser, provisionTenant, ProvisionedTenant } from './support/factories';
import { FakeGitHub, startFakeGitHub } from './support/fake-oauth-servers';
import { OidcIdp, startOidcIdp } from './support/oidc-idp';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';

jest.setTimeout(60_000);

type Res = { status: number; body: any; headers: Record<string, string>; text?: string };

const ORIGIN = 'https://shop.acme.test';
const RETURN_TO = `${ORIGIN}/after-login`;
const STUB_SECRET = 'stub-client-secret-0123456789abcdef';
const GITHUB_SECRET = 'github-client-secret-provider-test-0123';
const FRIENDLY = 'Signing in with single sign-on is not working right now. Try another way to sign in, or try again later.';

/** A local server answering JSON per path (status and body settable by the spec); anything else 404. */
interface Stub {
  base: string;
  routes: Map<string, { status: number; body: unknown }>;
  close(): Promise<void>;
}

async function startStub(): Promise<Stub> {
  const routes = new Map<string, { status: number; body: unknown }>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const route = routes.get(new URL(req.url ?? '/', 'http://x').pathname) ?? { status: 404, body: { error: 'not_found' } };
      res.statusCode = route.status;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(route.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    routes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port on 127.0.0.1 nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('testing a social provider, and a provider that cannot be used', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let other: ProvisionedTenant;
  let idp: OidcIdp;
  let stub: Stub;
  let gh: FakeGitHub;
  let S: string;
  let port: number;
  /** Every response body seen, to check that no secret ever appears. */
  const seen: string[] = [];

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const record = (res: Res): Res => {
    seen.push(JSON.stringify(res.body ?? ''), res.text ?? '');
    return res;
  };
  const callbackUrl = (provider: string) => `${t.baseUrl}/api/v1/oauth/${provider}/callback`;
  const testProvider = async (provider: string, body: Record<string, unknown> = {}, token: string | null = a.adminToken, sectorID = S) => {
    const req = t.http().post(`/api/v1/sectors/${sectorID}/oauth/providers/${provider}/test`);
    return record(await (token ? req.set(bearer(token)) : req).send(body));
  };
  /** The Test of an unsaved oidc configuration merged over the stored one. */
  const testOidc = (config: Record<string, unknown>) => testProvider('oidc', { providers: { oidc: config } });
  const putProviders = async (sectorID: string, providers: Record<string, unknown>) =>
    record(await t.http().put(`/api/v1/sectors/${sectorID}/oauth/providers`).set(bearer(a.adminToken)).send({ providers }));
  const getProviders = async (sectorID = S) => record(await t.http().get(`/api/v1/sectors/${sectorID}/oauth/providers`).set(bearer(a.adminToken)));
  const failing = (res: Res) => (res.body.checks as Array<{ name: string; ok: boolean; detail: string }>).filter((c) => !c.ok);

  /** A discovery document on the stub for `issuer`, its endpoints on the stub. */
  function stubDiscovery(path: string, overrides: Record<string, unknown> = {}): string {
    const issuer = `${stub.base}${path}`;
    stub.routes.set(`${path}/.well-known/openid-configuration`, {
      status: 200,
      body: {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        ...overrides,
      },
    });
    stub.routes.set(`${path}/jwks`, { status: 200, body: { keys: [{ kty: 'RSA', use: 'sig', alg: 'RS256', kid: 'k1', n: 'AQAB', e: 'AQAB' }] } });
    return issuer;
  }

  beforeAll(async () => {
    stub = await startStub();
    gh = await startFakeGitHub();
    port = await closedPort();
    t = await startTestApp({ env: { ...NO_THROTTLE, OAUTH_GITHUB_BASE_URL: gh.base, OAUTH_GITHUB_API_BASE_URL: gh.base } });
    idp = await startOidcIdp([callbackUrl('oidc')]);
    a = await provisionTenant(t);
    other = await provisionTenant(t);
    S = await createSector(t, a.adminToken, undefined, { allowedOrigins: [ORIGIN] });
    const saved = await putProviders(S, {
      oidc: { enabled: true, clientID: idp.clientId, clientSecret: idp.clientSecret, issuerURL: idp.issuer, redirectURI: callbackUrl('oidc') },
      github: { enabled: true, clientID: 'gh-client', clientSecret: GITHUB_SECRET, redirectURI: callbackUrl('github') },
    });
    expect(saved.status).toBe(200);
  });

  afterAll(async () => {
    await idp?.close();
    await stub?.close();
    await gh?.close();
    await t?.close();
  });

  describe('the Test operation', () => {
    it('passes every check for a good configuration (the stored one)', async () => {
      const res = await testProvider('oidc');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ok: true,
        checks: [
          { name: 'configuration', ok: true, detail: 'the configuration is complete' },
          { name: 'discovery', ok: true, detail: `${idp.issuer}/.well-known/openid-configuration answered` },
          { name: 'issuer', ok: true, detail: `the document names ${idp.issuer}` },
          { name: 'endpoints', ok: true, detail: expect.stringMatching(/present and allowed/) },
          { name: 'jwks', ok: true, detail: expect.stringMatching(/key usable for RS256/) },
        ],
      });
    });

    it('names a closed port: discovery fails, "the connection was refused"; the stored configuration is unchanged', async () => {
      const before = await getProviders();
      const res = await testOidc({ issuerURL: `http://127.0.0.1:${port}` });
      expect(res.status).toBe(200);
      expect(res.body.ok).toBe(false);
      expect(failing(res)).toEqual([
        { name: 'discovery', ok: false, detail: `http://127.0.0.1:${port}/.well-known/openid-configuration could not be reached: the connection was refused` },
      ]);
      expect(res.body.checks.map((c: { name: string }) => c.name)).toEqual(['configuration', 'discovery']);
      expect((await getProviders()).body).toEqual(before.body);
    });

    it('names a discovery answering 404', async () => {
      const res = await testOidc({ issuerURL: `${stub.base}/missing` });
      expect(res.body.ok).toBe(false);
      expect(failing(res)).toEqual([{ name: 'discovery', ok: false, detail: `${stub.base}/missing/.well-known/openid-configuration answered HTTP 404` }]);
    });

    it('names an issuer mismatch', async () => {
      const issuer = stubDiscovery('/mismatch', { issuer: 'https://elsewhere.example' });
      const res = await testOidc({ issuerURL: issuer });
      expect(res.body.ok).toBe(false);
      expect(failing(res)).toEqual([{ name: 'issuer', ok: false, detail: `issuer is ${issuer} but the document says https://elsewhere.example` }]);
    });

    it('names a missing endpoint, and one on another host', async () => {
      const issuer = stubDiscovery('/endpoints', { token_endpoint: undefined, jwks_uri: 'https://keys.elsewhere.example/jwks' });
      const res = await testOidc({ issuerURL: issuer });
      expect(failing(res)).toEqual([
        { name: 'endpoints', ok: false, detail: "token_endpoint is missing; jwks_uri is on keys.elsewhere.example, not on the issuer's host or OAUTH_ENDPOINT_HOSTS" },
      ]);
    });

    it('names a key set without a key for the ID token algorithm', async () => {
      const issuer = stubDiscovery('/keys');
      stub.routes.set('/keys/jwks', { status: 200, body: { keys: [{ kty: 'EC', use: 'sig', alg: 'ES256', crv: 'P-256', x: 'AA', y: 'AA' }] } });
      const res = await testOidc({ issuerURL: issuer });
      expect(failing(res)).toEqual([{ name: 'jwks', ok: false, detail: `${issuer}/jwks has 1 key, none usable for RS256 (the ID token's algorithms)` }]);
    });

    it('reports what a save would refuse as the configuration check, without contacting anything', async () => {
      const res = await testOidc({ issuerURL: 'ftp://idp.example', clientID: '' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ok: false,
        checks: [{ name: 'configuration', ok: false, detail: expect.stringMatching(/issuerURL must be an absolute http\(s\) URL.*clientID is required|clientID is required.*issuerURL must be/) }],
      });
    });

    it('tests GitHub: its token endpoint and API answer', async () => {
      const res = await testProvider('github');
      expect(res.body).toEqual({
        ok: true,
        checks: [
          { name: 'configuration', ok: true, detail: 'the configuration is complete' },
          { name: 'token_endpoint', ok: true, detail: expect.stringContaining(`${gh.base}/login/oauth/access_token answered HTTP 200`) },
          { name: 'api', ok: true, detail: `${gh.base}/user answered HTTP 401` },
        ],
      });
    });

    it('refuses a malformed body and another provider in it', async () => {
      expectWireError(await testOidc({ issuerURL: 42 }), 400, 3, 'VALIDATION_FAILED', { fields: ['providers.oidc.issuerURL'] });
      expectWireError(await testProvider('oidc', { providers: { github: { clientID: 'x' } } }), 400, 3, 'VALIDATION_FAILED', { fields: ['providers.github'] });
      expectWireError(await testProvider('myspace'), 400, 3, 'VALIDATION_FAILED', { fields: ['provider'] });
    });

    it('is for the sector’s signed-in admins', async () => {
      expect(await testProvider('oidc', {}, null)).toMatchObject({ status: 401, body: { code: 16 } });
      const minted = await t.http().post(`/api/v1/sectors/${S}/tokens`).set(bearer(a.adminToken)).send({ name: 'ci' });
      expect(minted.status).toBe(200);
      expectWireError(await testProvider('oidc', {}, minted.body.token), 403, 7, 'ROLE_REQUIRED');
      await createUser(t, a.adminToken, S, { email: `plain.${a.slug}@example.test`, password: 'plain-user-password' });
      const userToken = await t.login(`plain.${a.slug}@example.test`, 'plain-user-password', S);
      expectWireError(await testProvider('oidc', {}, userToken), 403, 7, 'ROLE_REQUIRED');
      // Another tenant's admin: refused like for the update.
      const foreign = await testProvider('oidc', {}, other.adminToken);
      const foreignPut = await t.http().put(`/api/v1/sectors/${S}/oauth/providers`).set(bearer(other.adminToken)).send({ providers: {} });
      expect([403, 404]).toContain(foreign.status);
      expect({ status: foreign.status, reason: foreign.body.details[0].reason }).toEqual({ status: foreignPut.status, reason: foreignPut.body.details[0].reason });
    });

    it('never answers a secret', () => {
      const all = seen.join('\n');
      for (const secret of [idp.clientSecret, GITHUB_SECRET, STUB_SECRET]) expect(all.includes(secret)).toBe(false);
    });
  });

  describe('an end user and a provider that cannot be used', () => {
    let S2: string;

    beforeAll(async () => {
      S2 = await createSector(t, a.adminToken, undefined, { allowedOrigins: [ORIGIN] });
    });

    it('initiate against an unreachable provider: 503 SOCIAL_PROVIDER_UNAVAILABLE, a message to act on, no technical cause', async () => {
      expect((await putProviders(S2, { oidc: { enabled: true, clientID: 'c', clientSecret: STUB_SECRET, issuerURL: `http://127.0.0.1:${port}`, redirectURI: callbackUrl('oidc') } })).status).toBe(200);
      const res = record(await t.http().post('/api/v1/oauth/oidc/initiate').send({ sectorID: S2, redirectURI: RETURN_TO }));
      const body = expectWireError(res, 503, 14, 'SOCIAL_PROVIDER_UNAVAILABLE', { metadata: { provider: 'oidc' }, retry: true });
      expect(body.message).toBe(FRIENDLY);
      const text = JSON.stringify(res.body);
      for (const leak of ['127.0.0.1', String(port), 'fetch failed', 'ECONNREFUSED', 'refused']) expect({ leak, found: text.includes(leak) }).toEqual({ leak, found: false });
      // The Test says what is wrong.
      const tested = await testProvider('oidc', {}, a.adminToken, S2);
      expect(failing(tested)).toEqual([expect.objectContaining({ name: 'discovery', detail: expect.stringContaining('the connection was refused') })]);
    });

    it('a discovery answering 404 or naming another issuer: the same 503', async () => {
      for (const issuer of [`${stub.base}/nowhere`, stubDiscovery('/liar', { issuer: 'https://elsewhere.example' })]) {
        expect((await putProviders(S2, { oidc: { issuerURL: issuer } })).status).toBe(200);
        const res = record(await t.http().post('/api/v1/oauth/oidc/initiate').send({ sectorID: S2, redirectURI: RETURN_TO }));
        expectWireError(res, 503, 14, 'SOCIAL_PROVIDER_UNAVAILABLE', { metadata: { provider: 'oidc' }, retry: true });
        expect(JSON.stringify(res.body).includes(stub.base)).toBe(false);
      }
    });

    it('a token endpoint that fails or refuses the client sends the browser back with error=SOCIAL_PROVIDER_UNAVAILABLE; a bad code stays OAUTH_EXCHANGE_FAILED', async () => {
      const issuer = stubDiscovery('/tokens');
      expect((await putProviders(S2, { oidc: { issuerURL: issuer } })).status).toBe(200);
      const cases: Array<[{ status: number; body: unknown }, string]> = [
        [{ status: 502, body: { message: 'bad gateway' } }, 'SOCIAL_PROVIDER_UNAVAILABLE'],
        [{ status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } }, 'SOCIAL_PROVIDER_UNAVAILABLE'],
        [{ status: 400, body: { error: 'invalid_grant', error_description: 'code is invalid' } }, 'OAUTH_EXCHANGE_FAILED'],
      ];
      for (const [answer, reason] of cases) {
        stub.routes.set('/tokens/token', answer);
        const init = record(await t.http().post('/api/v1/oauth/oidc/initiate').send({ sectorID: S2, redirectURI: RETURN_TO }));
        expect(init.status).toBe(200);
        const state = new URL(init.body.authURL).searchParams.get('state')!;
        const cb = record(await t.http().get('/api/v1/oauth/oidc/callback').query({ code: 'some-code', state }).redirects(0));
        expect(cb.status).toBe(302);
        const back = new URL(cb.headers.location);
        expect({ answer: answer.status, page: `${back.origin}${back.pathname}`, error: back.searchParams.get('error') }).toEqual({ answer: answer.status, page: RETURN_TO, error: reason });
      }
    });
  });
});
