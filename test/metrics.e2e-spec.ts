/**
 * GET /metrics in the Prometheus format: refused to the public (a token on the
 * service's port, or a separate listener), and the counters move with sign-ins,
 * throttling and requests; pool and event-loop gauges are there.
 */
import request from 'supertest';
import { freePort } from './support/global-setup';
import { provisionTenant } from './support/factories';
import { expectWireError } from './support/contract';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'metrics-scraper-token-0123456789';

/** The value of one sample line, `name{labels} value`, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.indexOf('}'));
    if (want.every((w) => inside.split(',').includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('metrics', () => {
  let t: TestApp;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    t = await startTestApp({ env: { METRICS_TOKEN: TOKEN, METRICS_PORT: String(metricsPort), THROTTLE_ACCOUNT_FREE_ATTEMPTS: '2' } });
  });
  afterAll(() => t?.close());

  const scrape = async () => {
    const res = await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return res.text;
  };

  it('refuses an anonymous caller and a wrong token on the service port', async () => {
    expectWireError(await t.http().get('/metrics'), 401, 16, 'CREDENTIAL_MISSING');
    expectWireError(await t.http().get('/metrics').set('Authorization', 'Bearer not-the-token-at-all'), 401, 16, 'CREDENTIAL_MISSING');
  });

  it('counts sign-in outcomes per factor and reason, throttling blocks, and requests per route template and status', async () => {
    const tenant = await provisionTenant(t);
    const before = await scrape();
    const login = (password: string) => t.http().post('/api/v1/login/password').send({ username: tenant.adminEmail, password, sectorID: tenant.rootSectorID });
    expect((await login(tenant.adminPassword)).status).toBe(200);
    expect((await login('wrong-password')).status).toBe(401);
    expect((await login('wrong-password')).status).toBe(401);
    expect((await login('wrong-password')).status).toBe(429);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(delta('iam_sign_in_attempts_total', { factor: 'PASSWORD', outcome: 'success' })).toBe(1);
    expect(delta('iam_sign_in_attempts_total', { factor: 'PASSWORD', outcome: 'failure', reason: 'INVALID_CREDENTIALS' })).toBe(2);
    expect(delta('iam_sign_in_attempts_total', { factor: 'PASSWORD', outcome: 'failure', reason: 'TOO_MANY_ATTEMPTS' })).toBe(1);
    expect(delta('iam_throttle_blocks_total', { kind: 'password', reason: 'TOO_MANY_ATTEMPTS' })).toBe(1);
    expect(delta('iam_http_requests_total', { method: 'POST', route: '/api/v1/login/password', status: '401' })).toBe(2);
    expect(delta('iam_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/login/password', status: '200' })).toBe(1);
    // Requests are labelled by route template, never by concrete ids.
    const requestLines = after.split('\n').filter((l) => l.startsWith('iam_http_request'));
    expect(requestLines.filter((l) => /[0-9a-f]{8}-[0-9a-f]{4}-/.test(l))).toEqual([]);
  });

  it('reports pool use, open tenant pools, the outbox and the event-loop lag', async () => {
    const text = await scrape();
    expect(sample(text, 'iam_db_pool_connections', { pool: 'main', state: 'total' })).toBeGreaterThan(0);
    expect(text).toMatch(/^iam_tenant_pools_open \d+/m);
    expect(text).toMatch(/^iam_outbox_tenants_pending \d+/m);
    expect(text).toMatch(/^iam_nodejs_eventloop_lag_seconds \d/m);
  });

  it('serves the same metrics without a token on the separate METRICS_PORT listener', async () => {
    const res = await request(`http://127.0.0.1:${metricsPort}`).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('iam_http_requests_total');
  });

  it('has no /metrics on the service port when no token is configured', async () => {
    const plain = await startTestApp();
    try {
      expectWireError(await plain.http().get('/metrics'), 404, 5, 'ROUTE_NOT_FOUND');
    } finally {
      await plain.close();
    }
  });
});
