/**
 * Moving a tenant's database to another server (`iam-tenant-move`, TenantMover) while
 * two instances serve it under write load: every write that was answered 200 is in
 * the moved database exactly once, none is there twice, both instances follow the
 * move without a restart, and the source database is gone. Interrupted moves roll back (`--abort`) or resume, before and
 * after the switch. The run's server is `main`, an embedded one started here `second`.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DatabaseServer, startEmbeddedPostgres } from '../src/database/embedded-database';
import { withDatabase } from '../src/database/data-source-options';
import { copyDatabase } from '../src/tenancy/database-copy';
import { DirectoryRepository } from '../src/tenancy/directory.repository';
import { TenantDirectory } from '../src/tenancy/tenant-directory';
import { TenantMover } from '../src/tenancy/tenant-move';
import { TenantStorageService } from '../src/tenancy/tenant-storage';
import { TenantEntity, TenantLocation } from '../src/tenancy/tenant.entity';
import { expectWireError } from './support/contract';
import { freePort } from './support/global-setup';
import { startTestApp, TestApp } from './support/test-app';

describe('moving a tenant to another database server', () => {
  let second: DatabaseServer;
  let secondDir: string;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    secondDir = mkdtempSync(join(tmpdir(), 'iam-move-pg-'));
    chmodSync(secondDir, 0o755);
    second = await startEmbeddedPostgres({ dataDir: secondDir, port: await freePort(), database: 'postgres' });
    const env = { TENANT_DATABASE_SERVERS: `second=${second.url}` };
    a = await startTestApp({ tenancyMode: 'pooled', env });
    b = await startTestApp({ tenancyMode: 'pooled', databaseName: a.databaseName, env });
  }, 120_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await second?.stop();
    if (secondDir) rmSync(secondDir, { recursive: true, force: true });
  });

  const mover = () => a.app.get(TenantMover);
  const databaseOf = (tenantID: string) => `${a.databaseName}_t_${tenantID.replace(/-/g, '')}`;
  const mainServerUrl = () => a.app.get(TenantStorageService).sessionUrlFor({ storage: 'main', databaseName: null, schemaName: null });
  const onServer = async <T>(where: 'main' | 'second', database: string, sql: string, params: unknown[] = []): Promise<T[]> => {
    const client = new Client({ connectionString: withDatabase(where === 'main' ? mainServerUrl() : second.url, database) });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  };
  const databaseExists = async (where: 'main' | 'second', name: string) =>
    (await onServer<{ n: number }>(where, 'postgres', 'SELECT count(*)::int AS n FROM pg_database WHERE datname = $1', [name]))[0].n === 1;

  async function tenantOn(slug: string): Promise<{ tenantID: string; sectorID: string; adminToken: string }> {
    const platform = await a.platformToken();
    const res = await a.http().post('/api/v1/tenants').set('Authorization', `Bearer ${platform}`).send({ slug, name: slug, adminEmail: `admin@${slug}.test`, adminPassword: `${slug}-admin-password`, databaseServer: 'main' });
    expect(res.status).toBe(200);
    const sectorID = res.body.sector.sectorID as string;
    return { tenantID: res.body.tenantID as string, sectorID, adminToken: await a.login(`admin@${slug}.test`, `${slug}-admin-password`, sectorID) };
  }

  it('moves under write load through both instances: every answered write is there once, none twice, both instances follow, the source is gone', async () => {
    const t = await tenantOn('moving');
    const before = await a.http().post(`/api/v1/sectors/${t.sectorID}/users`).set('Authorization', `Bearer ${t.adminToken}`).send({ email: 'early@moving.test', password: 'early-password-1' });
    expect(before.status).toBe(200);
    const earlyToken = await a.login('early@moving.test', 'early-password-1', t.sectorID);

    const outcomes = new Map<string, number>();
    const okAfterMove = { a: 0, b: 0 };
    let moved = false;
    let stop = false;
    const writer = async (name: 'a' | 'b', app: TestApp) => {
      for (let i = 0; !stop; i++) {
        const email = `${name}-${i}@moving.test`;
        const res = await app.http().post(`/api/v1/sectors/${t.sectorID}/users`).set('Authorization', `Bearer ${t.adminToken}`).send({ email });
        outcomes.set(email, res.status);
        if (res.status === 200 && moved) okAfterMove[name]++;
        if (res.status !== 200) {
          expect({ status: res.status, body: res.body }).toMatchObject({ status: 503 });
          expect(['TENANT_MOVING', 'DATABASE_UNAVAILABLE', 'TENANT_DATABASE_UNAVAILABLE']).toContain(res.body.details?.[0]?.reason);
          expect(res.headers['retry-after']).toMatch(/^\d+$/);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    };
    const writers = Promise.all([writer('a', a), writer('b', b)]);
    await new Promise((r) => setTimeout(r, 300));
    const done = await mover().move('moving', 'second');
    moved = true;
    const deadline = Date.now() + 10_000;
    while ((okAfterMove.a < 3 || okAfterMove.b < 3) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    stop = true;
    await writers;

    expect(done).toMatchObject({ outcome: 'moved', from: 'main', to: 'second' });
    expect(done.rows?.users).toBeGreaterThan(1);
    expect(okAfterMove.a).toBeGreaterThanOrEqual(3);
    expect(okAfterMove.b).toBeGreaterThanOrEqual(3);

    // Every write accounted for, in the database on the second server.
    const stored = await onServer<{ email: string; n: number }>('second', databaseOf(t.tenantID), 'SELECT email, count(*)::int AS n FROM users GROUP BY email');
    const counts = new Map(stored.map((r) => [r.email, r.n]));
    const answered = [...outcomes].filter(([, status]) => status === 200).map(([email]) => email);
    const refused = [...outcomes].filter(([, status]) => status !== 200).map(([email]) => email);
    expect(answered.length).toBeGreaterThan(10);
    for (const email of answered) expect([email, counts.get(email)]).toEqual([email, 1]);
    // A refusal is a refusal, or (rarely: its connection ended between the commit and the answer, like any
    // network failure) a change that took: never half a change, never two.
    for (const email of refused) expect([undefined, 1]).toContain(counts.get(email));
    expect(counts.get('early@moving.test')).toBe(1);

    // The directory, both instances and the servers agree.
    const read = await a.http().get(`/api/v1/tenants/${t.tenantID}`).set('Authorization', `Bearer ${await a.platformToken()}`);
    expect(read.body.tenant.databaseServer).toBe('second');
    expect(await databaseExists('main', databaseOf(t.tenantID))).toBe(false);
    expect(await a.sql('SELECT * FROM tenant_moves')).toEqual([]);
    for (const app of [a, b]) {
      const introspected = await app.http().post('/api/v1/introspect').set('Authorization', `Bearer ${t.adminToken}`).send({ token: earlyToken });
      expect(introspected.status).toBe(200);
      expect(introspected.body).toMatchObject({ tenantID: t.tenantID });
      expect(await app.login('early@moving.test', 'early-password-1', t.sectorID)).toEqual(expect.any(String));
    }
  });

  /** A tenant left as a mover that died after the copy began would leave it: move recorded, source read-only, target created. */
  async function interruptedWhileCopying(slug: string): Promise<{ t: Awaited<ReturnType<typeof tenantOn>>; tenant: TenantEntity; from: TenantLocation; to: TenantLocation }> {
    const t = await tenantOn(slug);
    const tenant = (await a.app.get(TenantDirectory).tenantBySlug(slug))!;
    const from: TenantLocation = { storage: 'pooled', databaseName: tenant.databaseName, schemaName: null, databaseServer: null };
    const to: TenantLocation = { ...from, databaseServer: 'second' };
    const storage = a.app.get(TenantStorageService);
    await a.app.get(DirectoryRepository).beginMove(tenant.id, null, 'second');
    await storage.create(to);
    await storage.holdWrites(from);
    return { t, tenant, from, to };
  }

  const createUser = (app: TestApp, t: { sectorID: string; adminToken: string }, email: string) =>
    app.http().post(`/api/v1/sectors/${t.sectorID}/users`).set('Authorization', `Bearer ${t.adminToken}`).send({ email });

  it('an interrupted move holds writes (503 TENANT_MOVING, Retry-After: 1) but not reads, and --abort rolls it back', async () => {
    const { t, tenant } = await interruptedWhileCopying('aborting');
    const held = await createUser(b, t, 'held@aborting.test');
    expectWireError(held, 503, 14, 'TENANT_MOVING', { retry: true });
    expect(held.headers['retry-after']).toBe('1');
    expect((await b.http().get(`/api/v1/sectors/${t.sectorID}/users`).set('Authorization', `Bearer ${t.adminToken}`)).status).toBe(200);

    expect(await mover().abort('aborting')).toMatchObject({ outcome: 'finished', to: 'main' });
    expect(await databaseExists('second', tenant.databaseName!)).toBe(false);
    expect(await a.sql('SELECT * FROM tenant_moves')).toEqual([]);
    for (const app of [a, b]) expect((await createUser(app, t, `after-abort-${app === a ? 'a' : 'b'}@aborting.test`)).status).toBe(200);
  });

  it('running the command again resumes an interrupted move: before the switch it copies again, after it only drops the source', async () => {
    const copying = await interruptedWhileCopying('resuming');
    // A different server than the one under way is refused.
    await expect(mover().move('resuming', 'main')).rejects.toMatchObject({ reason: 'TENANT_MOVE_UNDER_WAY' });
    expect(await mover().move('resuming', 'second')).toMatchObject({ outcome: 'moved', to: 'second' });
    expect((await createUser(b, copying.t, 'resumed@resuming.test')).status).toBe(200);

    // Switched, then interrupted before the source was dropped.
    const switched = await interruptedWhileCopying('switching');
    const storage = a.app.get(TenantStorageService);
    const source = new Client({ connectionString: storage.sessionUrlFor(switched.from) });
    const target = new Client({ connectionString: storage.sessionUrlFor(switched.to) });
    await source.connect();
    await target.connect();
    try {
      await copyDatabase(source, target);
    } finally {
      await source.end();
      await target.end();
    }
    expect(await a.app.get(DirectoryRepository).switchMove(switched.tenant.id, null, 'second')).toBe(true);
    expect(await databaseExists('main', switched.tenant.databaseName!)).toBe(true);
    expect(await mover().move('switching', 'second')).toMatchObject({ outcome: 'finished', from: 'main', to: 'second' });
    expect(await databaseExists('main', switched.tenant.databaseName!)).toBe(false);
    expect((await createUser(a, switched.t, 'switched@switching.test')).status).toBe(200);
    expect(await a.login('admin@switching.test', 'switching-admin-password', switched.t.sectorID)).toEqual(expect.any(String));
  });

  it('refuses what cannot move: an unknown server, the server it is on', async () => {
    await tenantOn('staying');
    await expect(mover().move('staying', 'elsewhere')).rejects.toMatchObject({ reason: 'VALIDATION_FAILED' });
    await expect(mover().move('staying', 'main')).rejects.toMatchObject({ reason: 'TENANT_MOVE_UNDER_WAY' });
    await expect(mover().move('no-such-tenant', 'second')).rejects.toMatchObject({ reason: 'TENANT_NOT_FOUND' });
  });
});
