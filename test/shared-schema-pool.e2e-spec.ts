import { randomBytes } from 'node:crypto';
import { PoolClient } from 'pg';
import { withDatabase } from '../src/database/data-source-options';
import { SCHEMA_SWITCHES_MAX, SchemaPoolView, SharedSchemaPool } from '../src/database/shared-schema-pool';
import { provisionTenant, ProvisionedTenant } from './support/factories';
import { adminQuery, serverUrl, startTestApp, TestApp } from './support/test-app';

/** Schema-mode tenants share one pool per database: connections move between schemas, and each tenant's share is bounded. */
describe('SharedSchemaPool', () => {
  const database = `ssp_${randomBytes(4).toString('hex')}`;
  let pool: SharedSchemaPool;
  const errors: Error[] = [];

  beforeAll(async () => {
    await adminQuery(`CREATE DATABASE ${database}`);
    for (const schema of ['alpha', 'beta']) {
      await adminQuery(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.t (v text); INSERT INTO ${schema}.t VALUES ('${schema}')`, [], database);
    }
  });
  afterAll(async () => {
    await pool?.end();
    await adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });
  beforeEach(async () => {
    await pool?.end();
    pool = new SharedSchemaPool({ connectionString: withDatabase(serverUrl(), database), max: 1, connectionTimeoutMillis: 2000, application_name: 'iam-test-ssp' }, (err) => errors.push(err));
  });

  const valueAndBackend = async (view: SchemaPoolView) =>
    (await view.query<{ v: string; pid: number }>('SELECT v, pg_backend_pid() AS pid FROM t', [])).rows[0];

  it('serves every schema from one connection, each query seeing its own schema', async () => {
    const [alpha, beta] = [pool.view('alpha', 1, 1000), pool.view('beta', 1, 1000)];
    const answers = [];
    for (const view of [alpha, beta, alpha, beta, beta, alpha]) answers.push(await valueAndBackend(view));
    expect(answers.map((a) => a.v)).toEqual(['alpha', 'beta', 'alpha', 'beta', 'beta', 'alpha']);
    expect(new Set(answers.map((a) => a.pid)).size).toBe(1);
    expect(pool.totalCount).toBe(1);
  });

  it('checks out through the callback form TypeORM uses, set to the schema, and counts the lease until it is given back', async () => {
    const view = pool.view('beta', 2, 1000);
    const [client, release] = await new Promise<[PoolClient, (err?: Error | boolean) => void]>((resolve, reject) =>
      view.connect((err, c, r) => (err ? reject(err) : resolve([c!, r!]))),
    );
    expect(view.totalCount).toBe(1);
    expect((await client.query('SELECT v FROM t')).rows).toEqual([{ v: 'beta' }]);
    release();
    release();
    expect(view.totalCount).toBe(0);
    expect(() => (view.connect as () => unknown)()).toThrow(/callback/);
  });

  it('never reuses a connection whose query failed', async () => {
    const view = pool.view('alpha', 1, 1000);
    const before = await valueAndBackend(view);
    await expect(view.query('SELECT * FROM no_such_table', [])).rejects.toThrow(/no_such_table/);
    const after = await valueAndBackend(view);
    expect(after.v).toBe('alpha');
    expect(after.pid).not.toBe(before.pid);
  });

  it("bounds one schema's share: past its leases requests wait in order, then time out like node-postgres", async () => {
    pool = new SharedSchemaPool({ connectionString: withDatabase(serverUrl(), database), max: 3 }, (err) => errors.push(err));
    const alpha = pool.view('alpha', 1, 300);
    const held = await new Promise<(err?: Error | boolean) => void>((resolve, reject) => alpha.connect((err, _c, r) => (err ? reject(err) : resolve(r!))));
    // Another schema is not held back by alpha's full share.
    expect((await valueAndBackend(pool.view('beta', 1, 300))).v).toBe('beta');
    const waiting = alpha.query<{ v: string }>('SELECT v FROM t', []);
    expect(alpha.waitingCount).toBe(1);
    setTimeout(() => held(), 100);
    expect((await waiting).rows).toEqual([{ v: 'alpha' }]);

    const again = await new Promise<(err?: Error | boolean) => void>((resolve, reject) => alpha.connect((err, _c, r) => (err ? reject(err) : resolve(r!))));
    await expect(alpha.query('SELECT 1', [])).rejects.toThrow('timeout exceeded when trying to connect');
    expect(alpha.waitingCount).toBe(0);
    again();
    expect((await valueAndBackend(alpha)).v).toBe('alpha');
  });

  it(`closes a connection once it has served ${SCHEMA_SWITCHES_MAX} schema switches (a backend keeps every table's catalogue entries it touched)`, async () => {
    const [alpha, beta] = [pool.view('alpha', 1, 1000), pool.view('beta', 1, 1000)];
    const first = (await valueAndBackend(alpha)).pid;
    const pids = new Set<number>([first]);
    for (let i = 1; i < SCHEMA_SWITCHES_MAX + 2; i++) pids.add((await valueAndBackend(i % 2 ? beta : alpha)).pid);
    expect(pids.size).toBe(2);
    expect(errors).toEqual([]);
  });
});

describe('schema-mode tenants share connections (TENANT_POOL_MAX=1, TENANT_CONNECTIONS_MAX=2)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ tenancyMode: 'schema', env: { TENANT_POOL_MAX: '1', TENANT_CONNECTIONS_MAX: '2' } });
  }, 60_000);
  afterAll(() => t?.close(), 60_000);

  it('signs in and reads in six tenants over at most two tenant connections, each tenant seeing only its own rows', async () => {
    const tenants: ProvisionedTenant[] = [];
    for (let i = 0; i < 6; i++) tenants.push(await provisionTenant(t));
    // Every tenant backend seen after each request: with a pool per tenant, each tenant past the second would open its own.
    const seen = await tenantBackends(t);
    for (let round = 0; round < 2; round++) {
      for (const tenant of tenants) {
        const token = await t.login(tenant.adminEmail, tenant.adminPassword, tenant.rootSectorID);
        for (const pid of await tenantBackends(t)) seen.add(pid);
        const res = await t.http().get('/api/v1/sectors').set('Authorization', `Bearer ${token}`);
        expect(res.status).toBe(200);
        expect(res.body.sectors).toEqual([expect.objectContaining({ sectorID: tenant.rootSectorID, isDefault: true })]);
        for (const pid of await tenantBackends(t)) seen.add(pid);
      }
    }
    expect(seen.size).toBeLessThanOrEqual(2);
  });

  // Ten at a time per tenant connection slot: each waits for at most nine others, well inside the 5 s a request waits for a connection.
  it('answers 60 concurrent requests over six tenants, every one of them', async () => {
    const tenants: ProvisionedTenant[] = [];
    for (let i = 0; i < 6; i++) tenants.push(await provisionTenant(t));
    const statuses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        t
          .http()
          .get('/api/v1/sectors')
          .set('Authorization', `Bearer ${tenants[i % tenants.length].adminToken}`)
          .then((res) => (res.status === 200 && res.body.sectors[0]?.sectorID === tenants[i % tenants.length].rootSectorID ? 200 : `${res.status} ${JSON.stringify(res.body)}`)),
      ),
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect((await tenantBackends(t)).size).toBeLessThanOrEqual(2);
  });
});

/** The backends of the app's tenant connections (application iam-tenant) on its main database. */
async function tenantBackends(t: TestApp): Promise<Set<number>> {
  const rows = await t.sql<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'iam-tenant'`);
  return new Set(rows.map((r) => r.pid));
}
