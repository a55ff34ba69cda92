/**
 * The HTTP adapter (HTTP_ADAPTER=express|fastify) does not show on the wire: this
 * spec runs in both e2e projects (jest.config.js) and pins the corners where
 * Express and Fastify differ by default — how bodies are read (content types,
 * charsets, compressed bodies), routing leniency (case, trailing slash, long or
 * undecodable parameters), HEAD, which headers every answer carries, and
 * TRUST_PROXY given as addresses.
 */
import { gzipSync } from 'node:zlib';
import { expectWireError, WireResponse } from './support/contract';
import { startTestApp, TestApp, testConfig } from './support/test-app';

const LOGIN = '/api/v1/login/password';
const CREDENTIALS = JSON.stringify({ username: 'nobody@example.test', password: 'wrong-password' });

describe(`HTTP adapter (${process.env.HTTP_ADAPTER ?? 'express'})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: '127.0.0.1/32,::1' } });
  });
  afterAll(() => t?.close());

  it('runs on the adapter HTTP_ADAPTER names, and refuses any other', () => {
    expect(t.config.httpAdapter).toBe(process.env.HTTP_ADAPTER ?? 'express');
    expect(t.app.getHttpAdapter().getType()).toBe(t.config.httpAdapter);
    expect(() => testConfig(t.databaseUrl, { HTTP_ADAPTER: 'koa' })).toThrow(/HTTP_ADAPTER/);
  });

  describe('request bodies', () => {
    /** A raw POST (fetch: the body goes out byte for byte, as declared). */
    const post = async (body: string | Buffer, headers: Record<string, string>): Promise<WireResponse> => {
      const res = await fetch(`${t.baseUrl}${LOGIN}`, { method: 'POST', headers, body });
      const text = await res.text();
      return { status: res.status, headers: Object.fromEntries(res.headers), body: text ? JSON.parse(text) : undefined };
    };

    it('reads a gzip-compressed JSON body', async () => {
      const res = await post(gzipSync(CREDENTIALS), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      expectWireError(res, 401, 16, 'INVALID_CREDENTIALS');
    });

    it('refuses an unknown content encoding and a body that does not inflate as 400 VALIDATION_FAILED', async () => {
      expectWireError(await post(CREDENTIALS, { 'Content-Type': 'application/json', 'Content-Encoding': 'x-unknown' }), 400, 3, 'VALIDATION_FAILED');
      expectWireError(await post('\u001f\u008b\u0008\u0000garbage', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }), 400, 3, 'VALIDATION_FAILED');
    });

    it('refuses a JSON body in a charset other than UTF-8 as 400 VALIDATION_FAILED', async () => {
      expectWireError(await post(CREDENTIALS, { 'Content-Type': 'application/json; charset=latin1' }), 400, 3, 'VALIDATION_FAILED');
    });

    it('leaves bodies of other or unparseable content types unread: the handler sees no body', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'x/y; a="', 'garbage']) {
        const res = await post(CREDENTIALS, { 'Content-Type': type });
        expect({ type, status: res.status }).toEqual({ type, status: 400 });
        expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['username'] });
      }
    });

    it('answers a parser failure with the same request id in the header and the body', async () => {
      const res = await post('{nope', { 'Content-Type': 'application/json', 'X-Request-Id': 'adapter-parse-0001' });
      expectWireError(res, 400, 3, 'MALFORMED_JSON');
      expect(res.headers['x-request-id']).toBe('adapter-parse-0001');
      expect(JSON.stringify(res.body)).toContain('adapter-parse-0001');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    });
  });

  describe('routing', () => {
    it('matches paths regardless of letter case and a trailing slash, as Express does', async () => {
      for (const path of ['/healthz', '/healthz/', '/HEALTHZ', '/Healthz/']) {
        const res = await t.http().get(path);
        expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 200, body: { status: 'ok' } });
      }
    });

    it('answers HEAD for GET routes, without a body', async () => {
      const res = await t.http().head('/healthz');
      expect(res.status).toBe(200);
      expect(res.text ?? '').toBe('');
    });

    it('matches long path parameters (the route answers, not 404)', async () => {
      expectWireError(await t.http().get(`/api/v1/users/${'a'.repeat(500)}`), 401, 16, 'CREDENTIAL_MISSING');
    });

    it('refuses a path parameter that does not decode as 400 INVALID_ARGUMENT', async () => {
      const res = await t.http().get('/api/v1/users/%zz');
      expectWireError(res, 400, 3, 'VALIDATION_FAILED');
    });

    it('answers unknown routes, with helmet headers and no-store, in the error body', async () => {
      const res = await t.http().get('/api/v1/no-such-thing').set('X-Request-Id', 'adapter-404-0001');
      expectWireError(res, 404, 5, 'ROUTE_NOT_FOUND');
      expect(res.headers['x-request-id']).toBe('adapter-404-0001');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-powered-by']).toBeUndefined();
    });

    it('serves the docs UI and every asset it references', async () => {
      const page = await t.http().get('/api/docs');
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]).filter((u) => !/^(https?:|data:)/.test(u));
      expect(assets.length).toBeGreaterThan(1);
      for (const asset of assets) {
        const url = new URL(asset, `${t.baseUrl}/api/docs`).pathname;
        const res = await t.http().get(url);
        expect({ url, status: res.status }).toEqual({ url, status: 200 });
      }
      const json = await t.http().get('/api/docs-json');
      expect({ status: json.status, openapi: json.body.openapi }).toEqual({ status: 200, openapi: expect.stringMatching(/^3\./) });
    });
  });

  describe('TRUST_PROXY as addresses', () => {
    it('counts the address a trusted proxy (here: loopback, by CIDR) forwarded', async () => {
      const res = await t.http().post(LOGIN).set('X-Forwarded-For', '198.51.100.23').send(JSON.parse(CREDENTIALS));
      expect(res.status).toBe(401);
      const keys = (await t.sql<{ key: string }>(`SELECT key FROM throttle_counters WHERE key LIKE 'password:ip:%'`)).map((r) => r.key);
      expect(keys).toContain('password:ip:198.51.100.23');
    });
  });
});
