/**
 * Outbound URL safety, end to end (docs/security.md, Outbound requests):
 *
 *  1. An OpenID issuer must be https (http only to loopback outside
 *     production) and not a private, link-local or reserved address: refused
 *     when the provider is configured.
 *  2. A discovery document that names an endpoint on another host (or on a
 *     metadata address), or an issuer that redirects, fails the sign-in with
 *     PROVIDER_ENDPOINT_NOT_ALLOWED — at initiate, or at the callback when the
 *     document changed in between — and nothing is sent to that endpoint. A real
 *     `oidc-provider` on 127.0.0.1 plays the provider; a small proxy on
 *     127.0.0.1 serves its discovery document, doctored as each case needs.
 *  3. In production a loopback issuer is refused, configured or stored.
 *  4. The SMS webhook's redirects are not followed: a 3xx is a failed delivery,
 *     retried like the others.
 *  5. MagicLinkURL is https on PUBLIC_URL's origin or one of the sector's
 *     allowedOrigins (http only for localhost, outside production).
 */
import { randomUUID } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expectWireError } from './support/contract';
import { createSector, createUser, provisionTenant, ProvisionedTenant, tenantSql } from './support/factories';
import { OidcIdp, startOidcIdp } from './support/oidc-idp';
import { SmsGateway } from './support/sms-gateway';
import { FAST_WORKER } from './support/smtp';
import { NO_THROTTLE, startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';

jest.setTimeout(120_000);

type Res = { status: number; body: any; headers: Record<string, string> };

const ORIGIN = 'https://shop.acme.test';
const RETURN_TO = `${ORIGIN}/after-login`;
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A small HTTP server on 127.0.0.1 that records every request and answers `answer` (200 `{}` by default). */
interface Recorder {
  base: string;
  port: number;
  requests: Array<{ method: string; url: string }>;
  answer: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
  close(): Promise<void>;
}

async function startRecorder(): Promise<Recorder> {
  const recorder = {
    requests: [] as Array<{ method: string; url: string }>,
    answer: (_req: IncomingMessage, res: ServerResponse) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
  } as Recorder;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      recorder.requests.push({ method: req.method ?? '', url: req.url ?? '' });
      void Promise.resolve(recorder.answer(req, res)).catch((err: unknown) => res.writeHead(500).end(String(err)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  recorder.port = (server.address() as AddressInfo).port;
  recorder.base = `http://127.0.0.1:${recorder.port}`;
  recorder.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return recorder;
}

describe('outbound URL safety', () => {
  let t: TestApp;
  let a: ProvisionedTenant;
  let idp: OidcIdp;
  /** Serves the IdP's discovery document as its own (issuer rewritten), doctored by `doctor`. */
  let proxy: Recorder;
  /** Where doctored documents and redirects point: must never be reached. */
  let trap: Recorder;
  let doctor: (doc: Record<string, unknown>) => Record<string, unknown>;
  /** Sector with the generic OpenID provider on the proxy. */
  let S: string;

  const putProviders = async (sectorID: string, providers: Record<string, unknown>, app = t, token = a.adminToken): Promise<Res> =>
    app.http().put(`/api/v1/sectors/${sectorID}/oauth/providers`).set(auth(token)).send({ providers });
  const initiate = async (sectorID: string, app = t): Promise<Res> => app.http().post('/api/v1/oauth/oidc/initiate').send({ sectorID, redirectURI: RETURN_TO });
  const oidcProvider = (issuerURL: string, app = t) => ({
    oidc: { enabled: true, clientID: idp.clientId, clientSecret: idp.clientSecret, issuerURL, redirectURI: `${app.baseUrl}/api/v1/oauth/oidc/callback` },
  });
  /** Saves the provider on the proxy again (which also drops the cached discovery of its issuer). */
  const saveProvider = async () => expect((await putProviders(S, oidcProvider(proxy.base))).status).toBe(200);

  beforeAll(async () => {
    trap = await startRecorder();
    proxy = await startRecorder();
    t = await startTestApp({ env: { ...NO_THROTTLE } });
    idp = await startOidcIdp([`${t.baseUrl}/api/v1/oauth/oidc/callback`]);
    doctor = (doc) => doc;
    proxy.answer = async (req, res) => {
      if (req.url !== '/.well-known/openid-configuration') return void res.writeHead(404).end();
      const real = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doctor({ ...real, issuer: proxy.base })));
    };
    a = await provisionTenant(t);
    S = await createSector(t, a.adminToken, undefined, { allowedOrigins: [ORIGIN] });
    await saveProvider();
  });

  afterAll(async () => {
    await idp?.close();
    await proxy?.close();
    await trap?.close();
    await t?.close();
  });

  describe('1. the issuer is checked when the provider is configured', () => {
    it.each([
      'http://idp.example.com',
      'http://10.1.2.3',
      'https://169.254.169.254/latest/meta-data',
      'https://[::ffff:a9fe:a9fe]',
      'https://10.1.2.3',
      'https://192.168.0.10:8443',
      'https://100.64.0.1',
      'https://0.0.0.0',
      'https://user:secret@idp.example.com',
    ])('refuses %s as an issuer (INVALID_ARGUMENT on providers.oidc.issuerURL)', async (issuerURL) => {
      const res = await putProviders(S, { oidc: { issuerURL } });
      expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['providers.oidc.issuerURL'] });
      const read = await t.http().get(`/api/v1/sectors/${S}/oauth/providers`).set(auth(a.adminToken));
      expect(read.body.providers.oidc.issuerURL).toBe(proxy.base);
    });

    it('accepts an https issuer on a public name, and http on loopback outside production', async () => {
      const other = await createSector(t, a.adminToken, undefined, { allowedOrigins: [ORIGIN] });
      for (const issuerURL of ['https://idp.example.com', 'https://login.example.com/tenant/v2.0', idp.issuer, 'http://localhost:9999']) {
        expect({ issuerURL, status: (await putProviders(other, { oidc: { issuerURL } })).status }).toEqual({ issuerURL, status: 200 });
      }
    });
  });

  describe('2. discovered endpoints must stay on the issuer host; redirects are not followed', () => {
    afterEach(async () => {
      doctor = (doc) => doc;
      await saveProvider();
    });

    it('signs in through the undoctored document (the issuer and its endpoints on 127.0.0.1)', async () => {
      const init = await initiate(S);
      expect(init.status).toBe(200);
      expect(new URL(init.body.authURL).origin).toBe(idp.issuer);
    });

    it.each([
      ['token_endpoint', 'https://169.254.169.254/latest'],
      ['token_endpoint', 'TRAP_LOCALHOST/token'],
      ['jwks_uri', 'TRAP_LOCALHOST/jwks'],
      ['userinfo_endpoint', 'https://idp-elsewhere.example.com/userinfo'],
      ['authorization_endpoint', 'https://phish.example.com/auth'],
      ['token_endpoint', 'ftp://127.0.0.1/token'],
    ])('a discovery naming %s %s is not used: initiate fails with PROVIDER_ENDPOINT_NOT_ALLOWED', async (field, value) => {
      trap.requests.length = 0;
      // The trap listens on 127.0.0.1 but is named `localhost`: another host than the issuer's.
      doctor = (doc) => ({ ...doc, [field]: value.replace('TRAP_LOCALHOST', `http://localhost:${trap.port}`) });
      await saveProvider();
      const res = await initiate(S);
      expectWireError(res, 400, 9, 'PROVIDER_ENDPOINT_NOT_ALLOWED', { metadata: { provider: 'oidc' } });
      expect(JSON.stringify(res.body)).not.toContain('localhost');
      expect(trap.requests).toEqual([]);
    });

    it('a document changed between initiate and callback: the callback goes back to the client with error=PROVIDER_ENDPOINT_NOT_ALLOWED, nothing reaches the named endpoint', async () => {
      trap.requests.length = 0;
      const init = await initiate(S);
      expect(init.status).toBe(200);
      doctor = (doc) => ({ ...doc, token_endpoint: `http://localhost:${trap.port}/token` });
      await saveProvider();
      const account = `idp-${randomUUID()}`;
      idp.accounts.set(account, { sub: account, email: `${account}@example.test`, email_verified: true, name: 'Someone' });
      idp.useAccount(account);
      const answer = await idp.authorize(init.body.authURL);
      const cb = await t.http().get('/api/v1/oauth/oidc/callback').query(Object.fromEntries(answer.searchParams)).redirects(0);
      expect(cb.status).toBe(302);
      const back = new URL(cb.headers.location);
      expect({ page: `${back.origin}${back.pathname}`, error: back.searchParams.get('error') }).toEqual({ page: RETURN_TO, error: 'PROVIDER_ENDPOINT_NOT_ALLOWED' });
      expect(trap.requests).toEqual([]);
    });

    it('an issuer whose discovery redirects is not followed', async () => {
      trap.requests.length = 0;
      const honest = proxy.answer;
      proxy.answer = (_req, res) => void res.writeHead(302, { location: `${trap.base}/.well-known/openid-configuration` }).end();
      try {
        await saveProvider();
        expectWireError(await initiate(S), 400, 9, 'PROVIDER_ENDPOINT_NOT_ALLOWED', { metadata: { provider: 'oidc' } });
      } finally {
        proxy.answer = honest;
      }
      expect(trap.requests).toEqual([]);
    });

    it('a host of OAUTH_ENDPOINT_HOSTS may carry the endpoints', async () => {
      const allowing = await startTestApp({ env: { ...NO_THROTTLE, OAUTH_ENDPOINT_HOSTS: 'localhost' } });
      try {
        const b = await provisionTenant(allowing);
        const sector = await createSector(allowing, b.adminToken, undefined, { allowedOrigins: [ORIGIN] });
        expect((await putProviders(sector, oidcProvider(proxy.base, allowing), allowing, b.adminToken)).status).toBe(200);
        doctor = (doc) => ({ ...doc, jwks_uri: `http://localhost:${trap.port}/jwks`, userinfo_endpoint: 'https://idp-elsewhere.example.com/userinfo' });
        // localhost is allowed, idp-elsewhere.example.com is not.
        expectWireError(await initiate(sector, allowing), 400, 9, 'PROVIDER_ENDPOINT_NOT_ALLOWED', { metadata: { provider: 'oidc' } });
        doctor = (doc) => ({ ...doc, jwks_uri: `http://localhost:${trap.port}/jwks` });
        expect((await initiate(sector, allowing)).status).toBe(200);
      } finally {
        await allowing.close();
      }
    });
  });

  describe('3. production: no loopback issuer', () => {
    let p: TestApp;
    let pa: ProvisionedTenant;
    let PS: string;

    beforeAll(async () => {
      p = await startTestApp({ env: { ...NO_THROTTLE, NODE_ENV: 'production' } });
      pa = await provisionTenant(p);
      PS = await createSector(p, pa.adminToken, undefined, { allowedOrigins: [ORIGIN, 'http://localhost:8080'] });
    });

    afterAll(async () => {
      await p?.close();
    });

    it.each([() => idp.issuer, () => 'https://127.0.0.1:8443', () => 'https://localhost', () => 'https://[::1]', () => 'http://localhost:8080'])(
      'refuses a loopback issuer when configured (%#)',
      async (issuer) => {
        const res = await putProviders(PS, oidcProvider(issuer(), p), p, pa.adminToken);
        expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['providers.oidc.issuerURL'] });
      },
    );

    it('a stored loopback issuer (configured before) is not contacted: PROVIDER_ENDPOINT_NOT_ALLOWED', async () => {
      proxy.requests.length = 0;
      await tenantSql(
        p,
        pa.tenantID,
        `INSERT INTO oauth_providers (id, sector_id, provider, enabled, client_id, client_secret_sealed, team_id, key_id, private_key_sealed, redirect_uri, issuer_url, app_id)
         VALUES ($1, $2, 'oidc', true, $3, NULL, '', '', NULL, $4, $5, '')`,
        [randomUUID(), PS, idp.clientId, `${p.baseUrl}/api/v1/oauth/oidc/callback`, proxy.base],
      );
      expectWireError(await initiate(PS, p), 400, 9, 'PROVIDER_ENDPOINT_NOT_ALLOWED', { metadata: { provider: 'oidc' } });
      expect(proxy.requests).toEqual([]);
    });

    it('MagicLinkURL: http is refused even for localhost', async () => {
      const res = await p.http().put(`/api/v1/sectors/${PS}/settings`).set(auth(pa.adminToken)).send({ MagicLinkURL: 'http://localhost:8080/link' });
      expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['MagicLinkURL'] });
      const ok = await p.http().put(`/api/v1/sectors/${PS}/settings`).set(auth(pa.adminToken)).send({ MagicLinkURL: `${ORIGIN}/link` });
      expect({ status: ok.status, v: ok.body.MagicLinkURL }).toEqual({ status: 200, v: `${ORIGIN}/link` });
    });
  });

  describe('4. the SMS webhook does not follow redirects', () => {
    let s: TestApp;
    let gateway: Recorder;
    let target: SmsGateway;

    beforeAll(async () => {
      target = await SmsGateway.start();
      gateway = await startRecorder();
      gateway.answer = (_req, res) => void res.writeHead(302, { location: target.url }).end();
      s = await startTestApp({ env: { ...NO_THROTTLE, ...FAST_WORKER, SMS_WEBHOOK_URL: `${gateway.base}/sms`, SMS_WEBHOOK_AUTHORIZATION: 'Bearer sms-gateway-secret' } });
    });

    afterAll(async () => {
      await s?.close();
      await gateway?.close();
      await target?.close();
    });

    it('a 302 is a failed delivery (retried), never a request to the Location', async () => {
      const b = await provisionTenant(s);
      const email = `sms-${randomUUID()}@example.test`;
      const sub = await createUser(s, b.adminToken, b.rootSectorID, { email, password: 'a long enough password' });
      const token = await s.login(email, 'a long enough password', b.rootSectorID);
      const phone = '+15550100' + String(Math.floor(Math.random() * 900) + 100);
      const reg = await s.http().post(`/api/v1/users/${sub}/otp-registrations`).set(auth(token)).send({ type: 'sms', destination: phone });
      expect(reg.status).toBe(200);

      // Tried at least twice (the first failure is retried), each time refused: the redirect is not followed.
      // A delivery counts its attempt when it claims the row, before its request arrives: wait for both.
      const failed = await eventually(async () => {
        const [row] = await tenantSql(s, b.tenantID, `SELECT status, attempts, last_error FROM outbox WHERE channel = 'sms' AND recipient = $1`, [phone]);
        return row && Number(row.attempts) >= 2 && gateway.requests.length >= 2 && String(row.last_error ?? '').includes('302') ? row : undefined;
      }, 15_000, 'two failed SMS deliveries');
      expect(failed).toMatchObject({ status: expect.not.stringMatching(/^sent$/), last_error: expect.stringContaining('302') });
      expect(gateway.requests.length).toBeGreaterThanOrEqual(2);
      expect(target.requests).toEqual([]);

      // The gateway back to normal: the retry delivers.
      gateway.answer = (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      await eventually(async () => {
        const [row] = await tenantSql(s, b.tenantID, `SELECT status FROM outbox WHERE channel = 'sms' AND recipient = $1`, [phone]);
        return row?.status === 'sent' ? row : undefined;
      }, 15_000, 'the SMS delivered');
      expect(target.requests).toEqual([]);
    });
  });

  describe('5. MagicLinkURL is https on a trusted origin', () => {
    let M: string;
    const put = (body: Record<string, unknown>) => t.http().put(`/api/v1/sectors/${M}/settings`).set(auth(a.adminToken)).send(body);

    beforeAll(async () => {
      M = await createSector(t, a.adminToken, undefined, { allowedOrigins: [ORIGIN, 'http://localhost:8080', 'http://app.acme.test'] });
    });

    it.each([
      ['http on a public host', 'http://app.acme.test/link'],
      ['https on a foreign origin', 'https://evil.test/link'],
      ['https on an allowed host but another port', 'https://shop.acme.test:8443/link'],
      ['PUBLIC_URL over http (not localhost)', 'http://iam.test/invite'],
      ['http on localhost but not an allowed origin', 'http://localhost:9999/link'],
    ])('refuses %s (%s)', async (_what, value) => {
      expectWireError(await put({ MagicLinkURL: value }), 400, 3, 'VALIDATION_FAILED', { fields: ['MagicLinkURL'] });
    });

    it.each([
      ['https on an allowed origin', `${ORIGIN}/account/link?x=1`],
      ['the origin in another case', 'HTTPS://Shop.Acme.Test/link'],
      ['http://localhost on an allowed origin, outside production', 'http://localhost:8080/link'],
      ['empty (the default links)', ''],
    ])('accepts %s', async (_what, value) => {
      const res = await put({ MagicLinkURL: value });
      expect({ status: res.status, v: res.body.MagicLinkURL }).toEqual({ status: 200, v: value });
    });
  });
});
