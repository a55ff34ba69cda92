/**
 * The introspection fast path answers exactly as the framework's pipeline would:
 * each request is sent twice — as is (fast path) and with a query string (which
 * the fast path leaves to the framework; the route ignores it) — and the two
 * answers must match in status, body and headers (but the request id, the date
 * and the length). Requests the fast path must not take (browser origins,
 * compressed bodies, other content types) go to the framework.
 */
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { IntrospectionFastPath } from '../src/introspection/introspection-fast-path';
import { provisionTenant, ProvisionedTenant } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';

/** How many requests the fast path has answered so far: a spy on its handler (installed on first call). */
function servedBy(fast: IntrospectionFastPath): number {
  return jest.spyOn(fast as unknown as { serve(...args: unknown[]): Promise<void> }, 'serve').mock.calls.length;
}

interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

const VOLATILE = new Set(['date', 'x-request-id', 'content-length', 'etag']);

function normalise(res: request.Response): Answer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) if (!VOLATILE.has(name)) headers[name] = String(value);
  const body = JSON.parse(JSON.stringify(res.body ?? null)) as { details?: Array<Record<string, unknown>> };
  for (const d of body?.details ?? []) if ('requestId' in d) d.requestId = '…';
  return { status: res.status, body, headers };
}

describe('introspection fast path', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;
  let fast: IntrospectionFastPath;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await provisionTenant(t);
    fast = t.app.get(IntrospectionFastPath);
  });
  afterAll(async () => t?.close());

  /** Sends the same request through the fast path and through the framework; answers both. */
  async function both(auth: string | undefined, body: string, contentType = 'application/json'): Promise<[Answer, Answer]> {
    const send = async (path: string) => {
      let req = request(t.baseUrl).post(path).set('Content-Type', contentType);
      if (auth !== undefined) req = req.set('Authorization', auth);
      return req.send(body);
    };
    const before = servedBy(fast);
    const viaFast = await send('/api/v1/introspect');
    expect(servedBy(fast)).toBe(before + (auth === undefined ? 0 : 1));
    const viaFramework = await send('/api/v1/introspect?via=framework');
    expect(servedBy(fast)).toBe(before + (auth === undefined ? 0 : 1));
    return [normalise(viaFast), normalise(viaFramework)];
  }

  const cases: Array<[string, () => [string | undefined, string]]> = [
    ['a valid token', () => [`Bearer ${tenant.adminToken}`, JSON.stringify({ token: tenant.adminToken })]],
    ['unknown fields besides the token', () => [`Bearer ${tenant.adminToken}`, JSON.stringify({ token: tenant.adminToken, extra: [1, { a: null }] })]],
    ['a garbage token', () => [`Bearer ${tenant.adminToken}`, JSON.stringify({ token: 'not-a-token' })]],
    ['a token that is not a string', () => [`Bearer ${tenant.adminToken}`, JSON.stringify({ token: 42 })]],
    ['an empty token', () => [`Bearer ${tenant.adminToken}`, JSON.stringify({ token: '' })]],
    ['a null token', () => [`Bearer ${tenant.adminToken}`, JSON.stringify({ token: null })]],
    ['a token over 8192 characters', () => [`Bearer ${tenant.adminToken}`, JSON.stringify({ token: 'a'.repeat(8193) })]],
    ['a NUL in a key', () => [`Bearer ${tenant.adminToken}`, JSON.stringify({ token: tenant.adminToken, 'x\u0000': 1 })]],
    ['a body too deep', () => [`Bearer ${tenant.adminToken}`, `{"token":"${tenant.adminToken}","x":${'['.repeat(60)}${']'.repeat(60)}}`]],
    ['an array body', () => [`Bearer ${tenant.adminToken}`, JSON.stringify([tenant.adminToken])]],
    ['a scalar body', () => [`Bearer ${tenant.adminToken}`, '"token"']],
    ['malformed JSON', () => [`Bearer ${tenant.adminToken}`, '{"token": ']],
    ['malformed JSON and a bad credential', () => ['Bearer nope', '{"token": ']],
    ['a bad credential', () => ['Bearer nope', JSON.stringify({ token: tenant.adminToken })]],
    ['a bad credential and a bad body', () => ['Bearer nope', JSON.stringify({ token: 7 })]],
    ['not a bearer credential', () => ['Basic dXNlcjpwdw==', JSON.stringify({ token: tenant.adminToken })]],
    ['an API token as the caller', () => [`Bearer ${apiToken}`, JSON.stringify({ token: tenant.adminToken })]],
  ];
  let apiToken = '';

  beforeAll(async () => {
    const res = await t.http().post(`/api/v1/sectors/${tenant.rootSectorID}/tokens`).set('Authorization', `Bearer ${tenant.adminToken}`).send({ name: 'fast' }).expect(200);
    apiToken = res.body.token as string;
  });

  it.each(cases)('answers %s exactly as the framework does', async (_name, make) => {
    const [auth, body] = make();
    const [viaFast, viaFramework] = await both(auth, body);
    expect(viaFast).toEqual(viaFramework);
  });

  it("refuses another tenant's token the same way", async () => {
    const other = await provisionTenant(t);
    const [viaFast, viaFramework] = await both(`Bearer ${tenant.adminToken}`, JSON.stringify({ token: other.adminToken }));
    expect(viaFast.status).toBe(403);
    expect(viaFast).toEqual(viaFramework);
  });

  it('keeps an incoming X-Request-Id, like the framework', async () => {
    const res = await t.http().post('/api/v1/introspect').set('Authorization', `Bearer ${tenant.adminToken}`).set('X-Request-Id', 'trace-fast-0001').send({ token: tenant.adminToken });
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('trace-fast-0001');
  });

  it('leaves browser requests, compressed bodies and other content types to the framework', async () => {
    const before = servedBy(fast);
    const auth = `Bearer ${tenant.adminToken}`;
    await t.http().post('/api/v1/introspect').set('Authorization', auth).set('Origin', 'https://app.example.com').send({ token: tenant.adminToken });
    await t.http().post('/api/v1/introspect').set('Authorization', auth).set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send(gzipSync(JSON.stringify({ token: tenant.adminToken })));
    await t.http().post('/api/v1/introspect').set('Authorization', auth).set('Content-Type', 'text/plain').send(JSON.stringify({ token: tenant.adminToken }));
    await t.http().post('/api/v1/introspect').send({ token: tenant.adminToken });
    expect(servedBy(fast)).toBe(before);
  });

  it('counts its requests in the HTTP metrics under the route template', async () => {
    const metrics = await t.http().get('/metrics').set('Authorization', `Bearer ${t.config.metricsToken ?? ''}`);
    if (metrics.status === 200) expect(metrics.text).toMatch(/iam_http_requests_total\{[^}]*route="\/api\/v1\/introspect"[^}]*status="200"/);
  });
});
