/**
 * What an operations team meets on day one: the discovery document a stock JWT
 * client verifies tokens with, TRUST_PROXY as a hop count (a forged left-most
 * X-Forwarded-For address is ignored), the SMS webhook's Authorization header,
 * MIGRATE_ON_START=false with the migration commands run from the built output,
 * and the SIGTERM sequence (readiness flips at once, running requests finish,
 * new ones are refused, the process exits within SHUTDOWN_TIMEOUT_MS).
 *
 * The process parts need the build output (dist/); `npm test` builds it first.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import request from 'supertest';
import { TenantConnections } from '../src/tenancy/tenant-connections';
import { TenantDirectory } from '../src/tenancy/tenant-directory';
import { MailService } from '../src/mail/mail.service';
import { withDatabase } from '../src/database/data-source-options';
import { expectWireError } from './support/contract';
import { provisionTenant } from './support/factories';
import { freePort } from './support/global-setup';
import { SmsGateway } from './support/sms-gateway';
import { adminQuery, serverUrl, startTestApp, TestApp, testDatabaseName } from './support/test-app';
import { eventually } from './support/wait';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..');

describe('deployment details', () => {
  describe('the discovery document', () => {
    let t: TestApp;
    beforeAll(async () => {
      const port = await freePort();
      t = await startTestApp({ port, env: { PUBLIC_URL: `http://127.0.0.1:${port}` } });
    });
    afterAll(() => t?.close());

    it('advertises the issuer and the JWK Set, and a stock client (jose) verifies a token from the advertised jwks_uri', async () => {
      const res = await t.http().get('/.well-known/openid-configuration');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        issuer: t.baseUrl,
        jwks_uri: `${t.baseUrl}/.well-known/jwks.json`,
        introspection_endpoint: `${t.baseUrl}/api/v1/introspect`,
        id_token_signing_alg_values_supported: ['ES256'],
        subject_types_supported: ['public'],
      });
      const { createRemoteJWKSet, jwtVerify } = await import('jose');
      const token = await t.platformToken();
      const { payload, protectedHeader } = await jwtVerify(token, createRemoteJWKSet(new URL(res.body.jwks_uri)), { issuer: res.body.issuer, algorithms: ['ES256'] });
      expect(protectedHeader.alg).toBe('ES256');
      expect(payload).toMatchObject({ iss: t.baseUrl, username: 'root@platform.test', isAdmin: true });
    });
  });

  describe('TRUST_PROXY as a hop count', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ env: { TRUST_PROXY: '1' } });
    });
    afterAll(() => t?.close());

    it('counts the address the one trusted proxy added, not a forged left-most one', async () => {
      const res = await t
        .http()
        .post('/api/v1/login/password')
        .set('X-Forwarded-For', '203.0.113.66, 198.51.100.77')
        .send({ username: 'nobody@example.test', password: 'wrong-password' });
      expect(res.status).toBe(401);
      const keys = (await t.sql<{ key: string }>(`SELECT key FROM throttle_counters WHERE key LIKE 'password:ip:%'`)).map((r) => r.key);
      expect(keys).toContain('password:ip:198.51.100.77');
      expect(keys).not.toContain('password:ip:203.0.113.66');
    });
  });

  describe('SMS_WEBHOOK_AUTHORIZATION', () => {
    let t: TestApp;
    let gateway: SmsGateway;
    beforeAll(async () => {
      gateway = await SmsGateway.start();
      t = await startTestApp({ env: { SMS_WEBHOOK_URL: gateway.url, SMS_WEBHOOK_AUTHORIZATION: 'Bearer sms-gateway-secret', MAIL_POLL_INTERVAL_MS: '100' } });
    });
    afterAll(async () => {
      await t?.close();
      await gateway?.close();
    });

    it('is sent as the Authorization header of every webhook call, never in the URL', async () => {
      const tenant = await provisionTenant(t);
      const db = await t.app.get(TenantConnections).db(await t.app.get(TenantDirectory).requireTenant(tenant.tenantID));
      const mail = t.app.get(MailService);
      await db.transaction((tx) => mail.enqueueSms(tx, { to: '+15550100', body: 'hello', tag: 'test' }));
      mail.kick(tenant.tenantID);
      const sent = await eventually(() => gateway.requests.find((r) => (r.body as { body?: string }).body === 'hello'), 10_000, 'the SMS');
      expect(sent.authorization).toBe('Bearer sms-gateway-secret');
      expect(gateway.url).not.toContain('secret');
    });
  });

  describe('migrations as a separate step', () => {
    async function freshDatabase(): Promise<string> {
      const name = testDatabaseName();
      await adminQuery(`CREATE DATABASE "${name}"`);
      return name;
    }

    function cli(script: string, databaseName: string): Promise<{ code: number | null; out: string }> {
      return new Promise((resolve) => {
        const child = spawn(process.execPath, [join(ROOT, 'dist/src/cli', script)], {
          cwd: ROOT,
          env: {
            PATH: process.env.PATH,
            DATABASE_URL: withDatabase(serverUrl(), databaseName),
            DATA_DIR: join(ROOT, 'dist', '.cli-test-data'),
            MASTER_KEY: 'deployment-test-master-key-0123456789abcdef',
            BOOTSTRAP_ADMIN_PASSWORD: 'deployment-admin-pw',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
        child.on('exit', (code) => resolve({ code, out }));
      });
    }

    it('MIGRATE_ON_START=false refuses to serve a database that is behind, and starts once the migrate command ran', async () => {
      const db = await freshDatabase();
      await expect(startTestApp({ databaseName: db, env: { MIGRATE_ON_START: 'false' } })).rejects.toThrow(/MIGRATE_ON_START=false and the databases are behind/);

      const before = await cli('migration-status.js', db);
      expect(before.code).toBe(3);
      expect(before.out).toMatch(/main database: \d+ pending/);

      const migrate = await cli('migrate.js', db);
      expect({ code: migrate.code, out: migrate.out }).toEqual({ code: 0, out: expect.stringContaining('All databases are up to date') });

      const after = await cli('migration-status.js', db);
      expect({ code: after.code, out: after.out }).toEqual({ code: 0, out: expect.stringContaining('main database: up to date') });
      expect(after.out).toContain('tenant template: up to date');

      const t = await startTestApp({ databaseName: db, env: { MIGRATE_ON_START: 'false' } });
      try {
        expect((await t.http().get('/readyz')).status).toBe(200);
        await provisionTenant(t);
      } finally {
        await t.close();
      }
      expect((await cli('migration-status.js', db)).out).toContain('tenants: all up to date');
    });
  });

  describe('SIGTERM', () => {
    const children: ChildProcess[] = [];
    afterAll(() => {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    });

    /** The built service as a child process on a fresh database of the test server. */
    async function startService(env: Record<string, string>) {
      const name = testDatabaseName();
      await adminQuery(`CREATE DATABASE "${name}"`);
      const port = await freePort();
      const child = spawn(process.execPath, [join(ROOT, 'dist/src/main.js')], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_URL: withDatabase(serverUrl(), name),
          DATA_DIR: join(ROOT, 'dist', `.sigterm-${name}`),
          MASTER_KEY: 'sigterm-test-master-key-0123456789abcdefgh',
          BOOTSTRAP_ADMIN_EMAIL: 'admin@sigterm.test',
          BOOTSTRAP_ADMIN_PASSWORD: 'sigterm-admin-pw',
          LOG_LEVEL: 'log',
          HTTP_ADAPTER: process.env.HTTP_ADAPTER ?? 'express',
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.on('exit', (code) => resolve({ code, at: Date.now() })));
      const http = () => request(`http://127.0.0.1:${port}`);
      await eventually(() => out.includes('Identity service ready'), 60_000, 'the ready line');
      return { child, http, exited, output: () => out };
    }

    it('flips readiness at once, refuses new requests, lets the running one finish, and exits 0 within SHUTDOWN_TIMEOUT_MS', async () => {
      // bcrypt at cost 14 makes a sign-in take about a second: a request still running at SIGTERM.
      const service = await startService({ SHUTDOWN_TIMEOUT_MS: '8000', BCRYPT_COST: '14' });
      const slow = service.http().post('/api/v1/login/password').send({ username: 'admin@sigterm.test', password: 'sigterm-admin-pw' }).then((r) => r);
      await new Promise((r) => setTimeout(r, 150));
      const sentAt = Date.now();
      service.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 100));
      const ready = await service.http().get('/readyz');
      expectWireError(ready, 503, 14, 'SHUTTING_DOWN');
      expect((await service.http().get('/healthz')).status).toBe(200);
      const refused = await service.http().get('/api/v1/sectors');
      expectWireError(refused, 503, 14, 'SHUTTING_DOWN');
      expect(refused.headers.connection).toBe('close');
      const finished = await slow;
      expect({ status: finished.status, token: typeof finished.body.token }).toEqual({ status: 200, token: 'string' });
      const exit = await service.exited;
      expect(exit.code).toBe(0);
      expect(exit.at - sentAt).toBeLessThan(8000);
      expect(service.output()).toContain('SIGTERM received: not ready any more');
    });

    it('closes a request that outlives SHUTDOWN_TIMEOUT_MS and still exits cleanly, before the forced exit', async () => {
      // bcrypt at cost 14 (about a second, several on a loaded machine) outlives the 300 ms; the hash under way ends before the process does.
      const service = await startService({ SHUTDOWN_TIMEOUT_MS: '300', BCRYPT_COST: '14' });
      const slow = service.http().post('/api/v1/login/password').send({ username: 'admin@sigterm.test', password: 'sigterm-admin-pw' }).then(
        (r) => ({ status: r.status }),
        (err: Error) => ({ error: err.message }),
      );
      await new Promise((r) => setTimeout(r, 150));
      const sentAt = Date.now();
      service.child.kill('SIGTERM');
      const exit = await service.exited;
      // Exit code 0 and before SHUTDOWN_TIMEOUT_MS + 10 s, when the service would force its exit with code 1.
      expect(exit.code).toBe(0);
      expect(exit.at - sentAt).toBeLessThan(300 + 10_000);
      expect(await slow).toEqual({ error: expect.any(String) });
      expect(service.output()).toContain('still running after SHUTDOWN_TIMEOUT_MS');
    });
  });
});
