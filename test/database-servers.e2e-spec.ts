import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DatabaseServer, startEmbeddedPostgres } from '../src/database/embedded-database';
import { withDatabase } from '../src/database/data-source-options';
import { MAIN_DATA_SOURCE } from '../src/database/tokens';
import { AuthStateCache } from '../src/tenancy/auth-state-cache';
import { TENANT_SCHEMA_VERSION } from '../migrations/tenant';
import { TenantStorageService } from '../src/tenancy/tenant-storage';
import { expectWireError } from './support/contract';
import { createUser } from './support/factories';
import { freePort } from './support/global-setup';
import { eventually } from './support/wait';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Tenants on several PostgreSQL servers (TENANT_DATABASE_SERVERS, pooled mode): the
 * run's server is `main`, and a second, embedded server started here is `second`.
 * New tenants go to the server with the fewest tenants or to the one named; their
 * databases are cloned from a template on that server; sign-in and introspection work
 * on both; the orphan sweep covers both; the tenant read names the server, never its URL.
 */
describe('tenant database servers', () => {
  let second: DatabaseServer;
  let secondDir: string;
  let secondPort: number;
  let t: TestApp;
  let platformToken: string;

  const onSecond = async <T>(sql: string, params: unknown[] = []): Promise<T[]> => {
    const client = new Client({ connectionString: second.url });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  };
  const databasesOn = async (where: 'main' | 'second'): Promise<string[]> => {
    const sql = 'SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY 1';
    const prefix = `${t.databaseName}_`;
    const rows = where === 'main' ? await t.sql<{ datname: string }>(sql, [prefix]) : await onSecond<{ datname: string }>(sql, [prefix]);
    return rows.map((r) => r.datname);
  };
  const provision = (body: Record<string, unknown>) => t.http().post('/api/v1/tenants').set('Authorization', `Bearer ${platformToken}`).send(body);
  const databaseOf = (tenantID: string) => `${t.databaseName}_t_${tenantID.replace(/-/g, '')}`;

  beforeAll(async () => {
    secondDir = mkdtempSync(join(tmpdir(), 'iam-second-pg-'));
    chmodSync(secondDir, 0o755); // the cluster runs as the postgres user, which must reach it
    secondPort = await freePort();
    second = await startEmbeddedPostgres({ dataDir: secondDir, port: secondPort, database: 'postgres' });
    t = await startTestApp({ tenancyMode: 'pooled', env: { TENANT_DATABASE_SERVERS: `second=${second.url}` } });
    platformToken = await t.platformToken();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await second?.stop();
    if (secondDir) rmSync(secondDir, { recursive: true, force: true });
  });

  it('prepares the tenant template on every server at start', async () => {
    expect(await databasesOn('main')).toContain(`${t.databaseName}_tpl`);
    expect(await databasesOn('second')).toContain(`${t.databaseName}_tpl`);
  });

  it('places new tenants on the server with the fewest, each database on its own server only, and names the server in the tenant read', async () => {
    const first = await provision({ slug: 'spread-one', name: 'One', adminEmail: 'admin@one.test', adminPassword: 'one-admin-password' });
    const next = await provision({ slug: 'spread-two', name: 'Two', adminEmail: 'admin@two.test', adminPassword: 'two-admin-password' });
    expect([first.status, next.status]).toEqual([200, 200]);
    expect([first.body.databaseServer, next.body.databaseServer].sort()).toEqual(['main', 'second']);

    for (const res of [first, next]) {
      const here = res.body.databaseServer as 'main' | 'second';
      const there = here === 'main' ? 'second' : 'main';
      expect(await databasesOn(here)).toContain(databaseOf(res.body.tenantID));
      expect(await databasesOn(there)).not.toContain(databaseOf(res.body.tenantID));
      const read = await t.http().get(`/api/v1/tenants/${res.body.tenantID}?ping=true`).set('Authorization', `Bearer ${platformToken}`);
      expect(read.status).toBe(200);
      expect(read.body.tenant.databaseServer).toBe(here);
      expect(read.body.reachable).toBe(true);
      expect(JSON.stringify(read.body)).not.toContain('postgres://');
    }
    const stored = await t.sql<{ slug: string; database_server: string | null }>("SELECT slug, database_server FROM tenants WHERE slug LIKE 'spread-%' ORDER BY slug");
    expect(stored.map((r) => r.database_server ?? 'main').sort()).toEqual(['main', 'second']);
  });

  it('places a tenant on the server named, and refuses a server that is not configured', async () => {
    const named = await provision({ slug: 'named-second', name: 'Named', databaseServer: 'second' });
    expect(named.status).toBe(200);
    expect(named.body.databaseServer).toBe('second');
    expect(await databasesOn('second')).toContain(databaseOf(named.body.tenantID));

    const unknown = await provision({ slug: 'named-nowhere', name: 'Nowhere', databaseServer: 'third' });
    expectWireError(unknown, 400, 3, 'VALIDATION_FAILED', { fields: ['databaseServer'] });
    const malformed = await provision({ slug: 'named-bad', name: 'Bad', databaseServer: 'Not A Name' });
    expectWireError(malformed, 400, 3, 'VALIDATION_FAILED', { fields: ['databaseServer'] });
    expect(await t.sql("SELECT slug FROM tenants WHERE slug IN ('named-nowhere', 'named-bad')")).toEqual([]);
  });

  it('signs in, introspects and manages users of a tenant on the second server, and the token of a user deleted there is refused at once', async () => {
    const res = await provision({ slug: 'work-second', name: 'Work', adminEmail: 'admin@work.test', adminPassword: 'work-admin-password', databaseServer: 'second' });
    expect(res.status).toBe(200);
    const sectorID = res.body.sector.sectorID as string;
    const adminToken = await t.login('admin@work.test', 'work-admin-password', sectorID);

    const created = await t.http().post(`/api/v1/sectors/${sectorID}/users`).set('Authorization', `Bearer ${adminToken}`).send({ email: 'member@work.test', password: 'member-password-1' });
    expect(created.status).toBe(200);
    const memberToken = await t.login('member@work.test', 'member-password-1', sectorID);
    const active = await t.http().post('/api/v1/introspect').set('Authorization', `Bearer ${adminToken}`).send({ token: memberToken });
    expect(active.status).toBe(200);
    expect(active.body).toMatchObject({ sub: created.body.sub, sectorID, tenantID: res.body.tenantID });

    const tenantDb = new Client({ connectionString: second.url.replace(/\/[^/]*$/, `/${databaseOf(res.body.tenantID)}`) });
    await tenantDb.connect();
    try {
      expect((await tenantDb.query("SELECT email FROM users WHERE email = 'member@work.test'")).rows).toEqual([{ email: 'member@work.test' }]);
    } finally {
      await tenantDb.end();
    }

    const removed = await t.http().delete(`/api/v1/users/${created.body.sub}`).set('Authorization', `Bearer ${adminToken}`);
    expect(removed.status).toBe(200);
    const after = await t.http().post('/api/v1/introspect').set('Authorization', `Bearer ${adminToken}`).send({ token: memberToken });
    expectWireError(after, 401, 16, 'TOKEN_INVALID');
  });

  it("a second instance hears every change of a tenant on the second server on its one listener on the main database, a plain SQL statement there included", async () => {
    const b = await startTestApp({ tenancyMode: 'pooled', databaseName: t.databaseName, env: { TENANT_DATABASE_SERVERS: `second=${second.url}` } });
    try {
      const res = await provision({ slug: 'relay-second', name: 'Relay', adminEmail: 'admin@relay.test', adminPassword: 'relay-admin-password', databaseServer: 'second' });
      expect(res.status).toBe(200);
      const sectorID = res.body.sector.sectorID as string;
      const adminToken = await t.login('admin@relay.test', 'relay-admin-password', sectorID);
      const member = async (email: string) => {
        const sub = await createUser(t, adminToken, sectorID, { email, password: 'member-password-1' });
        return { sub, token: await t.login(email, 'member-password-1', sectorID) };
      };
      const cache = b.app.get(AuthStateCache);
      const introspectOnB = (token: string) => b.http().post('/api/v1/introspect').set('Authorization', `Bearer ${adminToken}`).send({ token });
      const warm = (token: string) =>
        eventually(async () => {
          const before = cache.hits;
          expect((await introspectOnB(token)).status).toBe(200);
          return cache.hits > before;
        }, 10_000, 'a cache hit on instance B');
      const refused = (token: string, reason: string) =>
        eventually(async () => {
          const answer = await introspectOnB(token);
          if (answer.status !== 401) return false;
          expect(answer.body.details?.[0]?.reason).toBe(reason);
          return true;
        }, 3_000, `the refusal (${reason}) on instance B`);

      // A change made through instance A.
      const deleted = await member('gone@relay.test');
      await warm(deleted.token);
      expect((await t.http().delete(`/api/v1/users/${deleted.sub}`).set('Authorization', `Bearer ${adminToken}`)).status).toBe(200);
      await refused(deleted.token, 'TOKEN_INVALID');

      // A change made by hand in the tenant's database on the second server.
      const revoked = await member('revoked@relay.test');
      await warm(revoked.token);
      const tenantDb = new Client({ connectionString: withDatabase(second.url, databaseOf(res.body.tenantID)) });
      await tenantDb.connect();
      try {
        await tenantDb.query('UPDATE sessions SET revoked_at = now() WHERE user_id = $1', [revoked.sub]);
      } finally {
        await tenantDb.end();
      }
      await refused(revoked.token, 'SESSION_REVOKED');

      // One listener per instance, on the main database; none on the tenant servers.
      expect(cache.listening).toBe(1);
      expect(await onSecond("SELECT pid FROM pg_stat_activity WHERE application_name = 'iam-auth-listener'")).toEqual([]);
    } finally {
      await b.close();
    }
  });

  it('sweeps orphaned tenant databases on every server', async () => {
    const orphan = `${t.databaseName}_t_${'f'.repeat(32)}`;
    await onSecond(`CREATE DATABASE "${orphan}"`);
    expect(await databasesOn('second')).toContain(orphan);
    const swept = await t.app.get(TenantStorageService).sweepOrphans(t.app.get(MAIN_DATA_SOURCE));
    expect(swept).toBeGreaterThanOrEqual(1);
    expect(await databasesOn('second')).not.toContain(orphan);
    // Tenants' own databases stay.
    const placed = await t.sql<{ database_name: string }>("SELECT database_name FROM tenants WHERE database_server = 'second'");
    const remaining = await databasesOn('second');
    for (const { database_name } of placed) expect(remaining).toContain(database_name);
  });

  it('when one server is down, only its tenants answer 503 with Retry-After, the others work on, and its tenants recover when it returns', async () => {
    const make = async (slug: string, databaseServer: string) => {
      const res = await provision({ slug, name: slug, adminEmail: `admin@${slug}.test`, adminPassword: `${slug}-admin-password`, databaseServer });
      expect(res.status).toBe(200);
      const sectorID = res.body.sector.sectorID as string;
      return { sectorID, token: await t.login(`admin@${slug}.test`, `${slug}-admin-password`, sectorID) };
    };
    const onMain = await make('blast-main', 'main');
    const away = await make('blast-second', 'second');
    const login = (slug: string, sectorID: string) =>
      t.http().post('/api/v1/login/password').send({ username: `admin@${slug}.test`, password: `${slug}-admin-password`, sectorID });
    const introspect = (token: string) => t.http().post('/api/v1/introspect').set('Authorization', `Bearer ${token}`).send({ token });

    await second.stop();
    try {
      const refused = await login('blast-second', away.sectorID);
      expectWireError(refused, 503, 14, 'DATABASE_UNAVAILABLE', { retry: true });
      expect(refused.headers['retry-after']).toBe('5');
      const listed = await t.http().get(`/api/v1/sectors/${away.sectorID}/users`).set('Authorization', `Bearer ${away.token}`);
      expect(listed.status).toBe(503);
      expect(listed.headers['retry-after']).toBe('5');

      expect((await login('blast-main', onMain.sectorID)).status).toBe(200);
      expect((await introspect(onMain.token)).status).toBe(200);
      expect((await t.http().get(`/api/v1/sectors/${onMain.sectorID}/users`).set('Authorization', `Bearer ${onMain.token}`)).status).toBe(200);
      expect((await t.http().get('/readyz')).status).toBe(200);
    } finally {
      second = await startEmbeddedPostgres({ dataDir: secondDir, port: secondPort, database: 'postgres' });
    }
    // Back by itself: the pools reconnect on the next requests.
    await eventually(async () => (await login('blast-second', away.sectorID)).status === 200, 20_000, 'a sign-in on the returned server');
    expect((await introspect(away.token)).status).toBe(200);
  });

  it('starts while a tenant server is down, serves everyone else, and brings the tenants and template of that server up to date once it is back', async () => {
    const made = await provision({ slug: 'late-second', name: 'Late', adminEmail: 'admin@late.test', adminPassword: 'late-admin-password', databaseServer: 'second' });
    expect(made.status).toBe(200);
    const sectorID = made.body.sector.sectorID as string;
    // As if a tenant migration had been added since it was last migrated.
    await t.sql(`UPDATE tenants SET schema_version = '' WHERE slug = 'late-second'`);

    const databaseName = t.databaseName;
    await t.close();
    await second.stop();
    try {
      t = await startTestApp({ tenancyMode: 'pooled', databaseName, env: { TENANT_DATABASE_SERVERS: `second=${second.url}` } });
      platformToken = await t.platformToken();
      expect((await t.http().get('/readyz')).status).toBe(200);
      const refused = await t.http().post('/api/v1/login/password').send({ username: 'admin@late.test', password: 'late-admin-password', sectorID });
      expect(refused.status).toBe(503);
      expect(await t.sql(`SELECT schema_version FROM tenants WHERE slug = 'late-second'`)).toEqual([{ schema_version: '' }]);
    } finally {
      second = await startEmbeddedPostgres({ dataDir: secondDir, port: secondPort, database: 'postgres' });
    }
    const signIn = () => t.http().post('/api/v1/login/password').send({ username: 'admin@late.test', password: 'late-admin-password', sectorID });
    await eventually(async () => (await signIn()).status === 200, 20_000, 'a sign-in once the server is back');
    expect(await t.sql(`SELECT schema_version FROM tenants WHERE slug = 'late-second'`)).toEqual([{ schema_version: TENANT_SCHEMA_VERSION }]);
    // A new tenant there gets its database from the template, prepared now.
    const fresh = await provision({ slug: 'after-return', name: 'After', databaseServer: 'second' });
    expect(fresh.status).toBe(200);
    expect(await databasesOn('second')).toContain(databaseOf(fresh.body.tenantID));
  });
});
