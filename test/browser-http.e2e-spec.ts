/**
 * Browser-facing HTTP: CORS for the origins sectors allow (preflight included,
 * credentials never, introspection excluded, nothing for other origins, new
 * origins seen by every instance at once), the usual security headers with a
 * content security policy the docs UI works under, and `Cache-Control: no-store`
 * on every API response — decided by the path as the router matches it (in any
 * case), never by its spelling.
 */
import { chromium } from 'playwright-core';
import { IntrospectionFastPath } from '../src/introspection/introspection-fast-path';
import { createSector, provisionTenant, ProvisionedTenant, uniqueSlug } from './support/factories';
import { startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';

/** How many requests the fast path has answered so far: a spy on its handler (installed on first call). */
function servedBy(fast: IntrospectionFastPath): number {
  return jest.spyOn(fast as unknown as { serve(...args: unknown[]): Promise<void> }, 'serve').mock.calls.length;
}

const ALLOWED = 'https://shop.cors.test';

describe('browser-facing HTTP', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await provisionTenant(t);
    await createSector(t, tenant.adminToken, uniqueSlug('s'), { allowedOrigins: [ALLOWED] });
  });
  afterAll(() => t?.close());

  const preflight = (app: TestApp, path: string, origin: string) =>
    app.http().options(path).set('Origin', origin).set('Access-Control-Request-Method', 'POST').set('Access-Control-Request-Headers', 'authorization, content-type');

  describe('CORS', () => {
    it("answers a preflight from a sector's allowed origin: 204 with the methods and headers the API uses, no credentials", async () => {
      const res = await preflight(t, '/api/v1/login/password', ALLOWED);
      expect(res.status).toBe(204);
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': ALLOWED,
        'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
        'access-control-allow-headers': 'Authorization, Content-Type, X-Request-Id',
        'access-control-max-age': '600',
        vary: 'Origin',
      });
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    });

    it('marks the actual response for the allowed origin and exposes the headers a client reads', async () => {
      const res = await t.http().post('/api/v1/login/password').set('Origin', ALLOWED).send({ username: tenant.adminEmail, password: 'wrong-password', sectorID: tenant.rootSectorID });
      expect(res.status).toBe(401);
      expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(res.headers['access-control-expose-headers']).toBe('X-Request-Id, Retry-After, WWW-Authenticate');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    });

    it('answers nothing CORS for any other origin, also lookalikes (the preflight is the usual 404 error body)', async () => {
      for (const origin of ['https://evil.test', 'https://shop.cors.test.evil.com', 'http://shop.cors.test', 'https://shop.cors.test:8443', 'null']) {
        const res = await preflight(t, '/api/v1/login/password', origin);
        expect({ origin, status: res.status, acao: res.headers['access-control-allow-origin'] }).toEqual({ origin, status: 404, acao: undefined });
        expect(res.body).toMatchObject({ code: 5, details: expect.arrayContaining([expect.objectContaining({ reason: 'ROUTE_NOT_FOUND' })]) });
      }
      const actual = await t.http().get('/api/v1/sectors').set('Origin', 'https://evil.test').set('Authorization', `Bearer ${tenant.adminToken}`);
      expect(actual.status).toBe(200);
      expect(actual.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('leaves introspection (a backend call) and the non-API routes out', async () => {
      expect((await preflight(t, '/api/v1/introspect', ALLOWED)).headers['access-control-allow-origin']).toBeUndefined();
      const intro = await t.http().post('/api/v1/introspect').set('Origin', ALLOWED).set('Authorization', `Bearer ${tenant.adminToken}`).send({ token: tenant.adminToken });
      expect(intro.status).toBe(200);
      expect(intro.headers['access-control-allow-origin']).toBeUndefined();
      expect((await t.http().get('/healthz').set('Origin', ALLOWED)).headers['access-control-allow-origin']).toBeUndefined();
    });

    it('leaves introspection out in any case of its path, as the router matches it', async () => {
      for (const path of ['/api/v1/Introspect', '/API/V1/INTROSPECT']) {
        expect({ path, acao: (await preflight(t, path, ALLOWED)).headers['access-control-allow-origin'] }).toEqual({ path, acao: undefined });
        const intro = await t.http().post(path).set('Origin', ALLOWED).set('Authorization', `Bearer ${tenant.adminToken}`).send({ token: tenant.adminToken });
        expect({ path, status: intro.status, acao: intro.headers['access-control-allow-origin'], cache: intro.headers['cache-control'] }).toEqual({
          path,
          status: 200,
          acao: undefined,
          cache: 'no-store',
        });
      }
      // While an API route in any case is a browser route like its lower-case spelling.
      const res = await preflight(t, '/API/V1/Login/Password', ALLOWED);
      expect({ status: res.status, acao: res.headers['access-control-allow-origin'] }).toEqual({ status: 204, acao: ALLOWED });
    });

    it("a new sector's origin is allowed at once on this instance and, through the directory's change notice, on another", async () => {
      const other = await startTestApp({ databaseName: t.databaseName });
      try {
        const origin = `https://${uniqueSlug('new')}.cors.test`;
        // Both instances have cached the origin list already.
        expect((await preflight(t, '/api/v1/signup', origin)).status).toBe(404);
        expect((await preflight(other, '/api/v1/signup', origin)).status).toBe(404);
        await createSector(t, tenant.adminToken, uniqueSlug('s'), { allowedOrigins: [origin] });
        expect((await preflight(t, '/api/v1/signup', origin)).status).toBe(204);
        await eventually(async () => (await preflight(other, '/api/v1/signup', origin)).status === 204, 5000, 'the other instance allowing the new origin');
      } finally {
        await other.close();
      }
    });
  });

  describe('security headers and caching', () => {
    it('sends the usual security headers and a content security policy', async () => {
      const res = await t.http().get('/healthz');
      expect(res.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
      });
      const csp = res.headers['content-security-policy'];
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(res.headers['x-powered-by']).toBeUndefined();
    });

    it('marks every API response no-store (tokens, personal data, errors), and leaves the public key set cacheable', async () => {
      const login = await t.http().post('/api/v1/login/password').send({ username: tenant.adminEmail, password: tenant.adminPassword, sectorID: tenant.rootSectorID });
      expect({ status: login.status, cache: login.headers['cache-control'] }).toEqual({ status: 200, cache: 'no-store' });
      const sub = JSON.parse(Buffer.from(String(login.body.token).split('.')[1], 'base64url').toString()).sub;
      const profile = await t.http().get(`/api/v1/users/${sub}`).set('Authorization', `Bearer ${login.body.token}`);
      expect({ status: profile.status, cache: profile.headers['cache-control'] }).toEqual({ status: 200, cache: 'no-store' });
      const error = await t.http().get('/api/v1/sectors');
      expect({ status: error.status, cache: error.headers['cache-control'] }).toEqual({ status: 401, cache: 'no-store' });
      expect((await t.http().get('/.well-known/jwks.json')).headers['cache-control']).not.toBe('no-store');
    });

    it('marks API responses no-store whatever the case of their path (the router matches any)', async () => {
      const login = await t.http().post('/API/V1/Login/Password').send({ username: tenant.adminEmail, password: tenant.adminPassword, sectorID: tenant.rootSectorID });
      expect({ status: login.status, cache: login.headers['cache-control'] }).toEqual({ status: 200, cache: 'no-store' });
      const sub = JSON.parse(Buffer.from(String(login.body.token).split('.')[1], 'base64url').toString()).sub;
      for (const path of [`/API/V1/USERS/${sub}`, `/Api/v1/Users/${sub}`]) {
        const res = await t.http().get(path).set('Authorization', `Bearer ${login.body.token}`);
        expect({ path, status: res.status, cache: res.headers['cache-control'], sub: res.body.sub }).toEqual({ path, status: 200, cache: 'no-store', sub });
      }
      const error = await t.http().get('/API/V1/SECTORS');
      expect({ status: error.status, cache: error.headers['cache-control'] }).toEqual({ status: 401, cache: 'no-store' });
    });

    it('answers introspection on its fast path in any case of the path, like the router', async () => {
      const fast = t.app.get(IntrospectionFastPath);
      for (const path of ['/api/v1/introspect', '/API/V1/Introspect']) {
        const before = servedBy(fast);
        const res = await t.http().post(path).set('Authorization', `Bearer ${tenant.adminToken}`).send({ token: tenant.adminToken });
        expect({ path, status: res.status, cache: res.headers['cache-control'], fast: servedBy(fast) - before }).toEqual({ path, status: 200, cache: 'no-store', fast: 1 });
      }
    });

    it('the docs UI renders in a real browser under the content security policy, with no violation', async () => {
      const browser = await chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      try {
        const page = await browser.newPage();
        const violations: string[] = [];
        page.on('console', (m) => {
          if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
        });
        await page.goto(`${t.baseUrl}/api/docs`);
        await page.waitForSelector('.opblock', { timeout: 20_000 });
        expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
        expect(violations).toEqual([]);
      } finally {
        await browser.close();
      }
    });
  });
});
