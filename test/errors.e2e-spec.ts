import { Logger } from '@nestjs/common';
import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';
import request from 'supertest';
import { withDatabase } from '../src/database/data-source-options';
import { createApp } from '../src/main';
import { SectorService } from '../src/sector/sector.service';
import { expectWireError } from './support/contract';
import { provisionTenant, ProvisionedTenant, seedUser } from './support/factories';
import { ADMIN_EMAIL, ADMIN_PASSWORD, adminQuery, serverUrl, startTestApp, testConfig, TestApp, testDatabaseName } from './support/test-app';

describe('errors: every failure is the contract error body', () => {
  let t: TestApp;
  let tenant: ProvisionedTenant;
  let platform: string;

  beforeAll(async () => {
    t = await startTestApp();
    platform = await t.platformToken();
    tenant = await provisionTenant(t);
  });
  afterAll(() => t.close());

  describe('unknown routes', () => {
    it('an unknown path is 404 NOT_FOUND / ROUTE_NOT_FOUND', async () => {
      const res = await t.http().get('/api/v1/nope');
      expectWireError(res, 404, 5, 'ROUTE_NOT_FOUND');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    });

    it('an unknown path is 404 even with a bearer and a body', async () => {
      const res = await t.http().post('/api/v2/sectors').set('Authorization', `Bearer ${platform}`).send({ a: 1 });
      expectWireError(res, 404, 5, 'ROUTE_NOT_FOUND');
    });

    it('an unknown method on a known path is 404 ROUTE_NOT_FOUND', async () => {
      expectWireError(await t.http().delete('/api/v1/sectors'), 404, 5, 'ROUTE_NOT_FOUND');
      expectWireError(await t.http().patch('/healthz').send({}), 404, 5, 'ROUTE_NOT_FOUND');
      expectWireError(await t.http().put('/api/v1/tenants').set('Authorization', `Bearer ${platform}`).send({}), 404, 5, 'ROUTE_NOT_FOUND');
    });
  });

  describe('request bodies', () => {
    it('malformed JSON is 400 INVALID_ARGUMENT / MALFORMED_JSON', async () => {
      const res = await t.http().post('/api/v1/login/password').set('Content-Type', 'application/json').send('{"username": "a",');
      expectWireError(res, 400, 3, 'MALFORMED_JSON');
    });

    it('a JSON scalar body (strict JSON: objects and arrays only) is MALFORMED_JSON', async () => {
      const res = await t.http().post('/api/v1/login/password').set('Content-Type', 'application/json').send('"just a string"');
      expectWireError(res, 400, 3, 'MALFORMED_JSON');
    });

    it('malformed JSON is refused before authentication', async () => {
      const res = await t.http().post('/api/v1/tenants').set('Content-Type', 'application/json').send('{nope');
      expectWireError(res, 400, 3, 'MALFORMED_JSON');
    });

    it('a body over 1 MiB is 400 INVALID_ARGUMENT / BODY_TOO_LARGE', async () => {
      const big = JSON.stringify({ username: 'x', password: 'y'.repeat(1024 * 1024 + 16) });
      const res = await t.http().post('/api/v1/login/password').set('Content-Type', 'application/json').send(big);
      expectWireError(res, 400, 3, 'BODY_TOO_LARGE');
    });

    it('a body just under 1 MiB is not refused for its size', async () => {
      const res = await t
        .http()
        .post('/api/v1/tenants')
        .set('Authorization', `Bearer ${platform}`)
        .send({ slug: 'X', name: 'n', padding: 'p'.repeat(1024 * 1024 - 100) });
      // It reaches validation (the padding field is unknown and ignored; slug is bad).
      expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['slug'] });
    });

    it('a validation failure is 400 VALIDATION_FAILED with a BadRequest naming every bad field', async () => {
      const res = await t.http().post('/api/v1/tenants').set('Authorization', `Bearer ${platform}`).send({ slug: 'X', name: 'Some tenant' });
      const body = expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['slug'] });
      expect(body.message).toContain('slug');

      const both = await t.http().post('/api/v1/tenants').set('Authorization', `Bearer ${platform}`).send({ slug: 'X' });
      expectWireError(both, 400, 3, 'VALIDATION_FAILED', { fields: ['name', 'slug'] });
    });

    it('a field of the wrong JSON type is INVALID_ARGUMENT with a fieldViolation on it', async () => {
      const res = await t
        .http()
        .put(`/api/v1/sectors/${tenant.rootSectorID}/settings`)
        .set('Authorization', `Bearer ${tenant.adminToken}`)
        .send({ MFARequired: 'yes' });
      expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['MFARequired'] });
      // Nothing was changed.
      const after = await t.http().get(`/api/v1/sectors/${tenant.rootSectorID}/settings`).set('Authorization', `Bearer ${tenant.adminToken}`);
      expect(after.status).toBe(200);
      expect(after.body.MFARequired).toBe(false);
    });

    it('a missing required field is INVALID_ARGUMENT', async () => {
      const res = await t.http().post('/api/v1/tenants').set('Authorization', `Bearer ${platform}`).send({ name: 'No slug' });
      expectWireError(res, 400, 3, 'VALIDATION_FAILED', { fields: ['slug'] });
    });
  });

  describe('credentials and roles', () => {
    it('a missing bearer is 401 UNAUTHENTICATED / CREDENTIAL_MISSING with WWW-Authenticate: Bearer', async () => {
      const res = await t.http().get('/api/v1/sectors');
      expectWireError(res, 401, 16, 'CREDENTIAL_MISSING');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('another scheme than Bearer counts as missing', async () => {
      const res = await t.http().get('/api/v1/sectors').set('Authorization', 'Basic cm9vdDpwdw==');
      expectWireError(res, 401, 16, 'CREDENTIAL_MISSING');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    });

    it('a garbage bearer is 401 TOKEN_INVALID', async () => {
      for (const credential of ['garbage', 'aaa.bbb.ccc', `${tenant.adminToken.slice(0, -4)}AAAA`]) {
        const res = await t.http().get('/api/v1/sectors').set('Authorization', `Bearer ${credential}`);
        expectWireError(res, 401, 16, 'TOKEN_INVALID');
        expect(res.headers['www-authenticate']).toBe('Bearer');
      }
    });

    it('a caller without the role is 403 PERMISSION_DENIED / ROLE_REQUIRED', async () => {
      // A tenant's own admin is not a platform admin.
      const res = await t.http().post('/api/v1/tenants').set('Authorization', `Bearer ${tenant.adminToken}`).send({ slug: 'nope-x', name: 'n' });
      expectWireError(res, 403, 7, 'ROLE_REQUIRED');
      expect(res.headers['www-authenticate']).toBeUndefined();

      // A non-admin of the default sector may not list sectors.
      await seedUser(t, tenant.tenantID, tenant.rootSectorID, { email: 'plain@errors.test', password: 'plain-user-pw' });
      const plain = await t.login('plain@errors.test', 'plain-user-pw', tenant.rootSectorID);
      expectWireError(await t.http().get('/api/v1/sectors').set('Authorization', `Bearer ${plain}`), 403, 7, 'ROLE_REQUIRED');
    });
  });

  describe('request ids', () => {
    it('a well-formed incoming X-Request-Id is echoed in the header and the body', async () => {
      const id = 'trace-abc-0123456789';
      const res = await t.http().get('/api/v1/nope').set('X-Request-Id', id);
      expect(res.headers['x-request-id']).toBe(id);
      const body = expectWireError(res, 404, 5, 'ROUTE_NOT_FOUND');
      expect(body.details[1].requestId).toBe(id);
    });

    it('an ill-formed incoming X-Request-Id is replaced by a fresh one', async () => {
      const res = await t.http().get('/api/v1/nope').set('X-Request-Id', 'bad id <script>');
      expect(res.headers['x-request-id']).not.toBe('bad id <script>');
      expect(res.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
      expectWireError(res, 404, 5, 'ROUTE_NOT_FOUND');
    });

    it('successful responses carry X-Request-Id too, echoed when given', async () => {
      const fresh = await t.http().get('/healthz');
      expect({ status: fresh.status, body: fresh.body }).toEqual({ status: 200, body: { status: 'ok' } });
      expect(fresh.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);

      const echoed = await t.http().get('/api/v1/sectors').set('Authorization', `Bearer ${tenant.adminToken}`).set('X-Request-Id', 'req-ok-123456');
      expect(echoed.status).toBe(200);
      expect(echoed.headers['x-request-id']).toBe('req-ok-123456');
    });

    it('every request gets its own id', async () => {
      const a = await t.http().get('/api/v1/nope');
      const b = await t.http().get('/api/v1/nope');
      expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    });
  });

  describe('server faults', () => {
    afterEach(() => jest.restoreAllMocks());

    it('a bug becomes 500 INTERNAL with a generic message, logged with the request id, never leaked', async () => {
      const errorLog = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      jest.spyOn(t.app.get(SectorService), 'list').mockRejectedValueOnce(new TypeError('secret detail'));
      const res = await t.http().get('/api/v1/sectors').set('Authorization', `Bearer ${tenant.adminToken}`).set('X-Request-Id', 'bug-req-0001');
      const body = expectWireError(res, 500, 13, 'INTERNAL');
      expect(body.message).toBe('An internal error occurred.');
      expect(res.text).not.toContain('secret detail');
      expect(res.text).not.toContain('TypeError');
      expect(res.text).not.toMatch(/stack|\bat .*\.ts:\d+|SELECT|INSERT/);
      expect(res.headers['x-request-id']).toBe('bug-req-0001');
      // The real error is logged, with the request id.
      const logged = errorLog.mock.calls.map((c) => String(c[0])).join('\n');
      expect(logged).toContain('bug-req-0001');
      expect(logged).toContain('secret detail');

      // The next call works again.
      const again = await t.http().get('/api/v1/sectors').set('Authorization', `Bearer ${tenant.adminToken}`);
      expect(again.status).toBe(200);
    });
  });
});

/** A TCP proxy in front of the test PostgreSQL server, so that a test can cut the app off its database. */
async function startProxy(host: string, port: number): Promise<{ port: number; cut: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    track(client);
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    cut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

describe('errors: database outage', () => {
  const databaseName = testDatabaseName();
  let app: Awaited<ReturnType<typeof createApp>> | undefined;
  let http: () => ReturnType<typeof request>;
  let proxy: Awaited<ReturnType<typeof startProxy>>;

  beforeAll(async () => {
    await adminQuery(`CREATE DATABASE "${databaseName}"`);
    const server = new URL(serverUrl());
    proxy = await startProxy(server.hostname, Number(server.port || 5432));
    const proxied = new URL(withDatabase(serverUrl(), databaseName));
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const config = testConfig(proxied.toString());
    app = await createApp(config, proxied.toString());
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    http = () => request(base);
  });

  afterAll(async () => {
    await app?.close();
  });

  it('answers /readyz 503 UNAVAILABLE / DATABASE_UNAVAILABLE once the database is gone; /healthz stays 200', async () => {
    const ready = await http().get('/readyz');
    expect({ status: ready.status, body: ready.body }).toEqual({ status: 200, body: { status: 'ok' } });
    const login = await http().post('/api/v1/login/password').send({ username: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    expect(login.status).toBe(200);
    const token = login.body.token as string;

    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      await proxy.cut();

      const down = await http().get('/readyz').set('X-Request-Id', 'ready-down-0001');
      const body = expectWireError(down, 503, 14, 'DATABASE_UNAVAILABLE');
      expect(down.headers['x-request-id']).toBe('ready-down-0001');
      expect(down.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres/i);
      expect(body.message.length).toBeGreaterThan(0);

      const live = await http().get('/healthz');
      expect({ status: live.status, body: live.body }).toEqual({ status: 200, body: { status: 'ok' } });

      // A guarded operation that needs the database answers the same way, not 500.
      const list = await http().get('/api/v1/sectors').set('Authorization', `Bearer ${token}`);
      expectWireError(list, 503, 14, 'DATABASE_UNAVAILABLE', { retry: true });
    } finally {
      jest.restoreAllMocks();
    }
  });
});
