import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { expectWireError } from './support/contract';
import { freePort } from './support/global-setup';
import { serverUrl, startTestApp, TestApp } from './support/test-app';
import { eventually } from './support/wait';

/** Debian's pgbouncer (`.ci/run` installs it when missing). */
const PGBOUNCER = '/usr/sbin/pgbouncer';

/**
 * Tenant databases behind PgBouncer in transaction mode: the run's PostgreSQL server is
 * tenant database server `pooled`, reached through a PgBouncer started here for the
 * tenants' pools (TENANT_DATABASE_SERVERS) and directly for what needs a session of
 * its own — the authorization-state cache's LISTEN, migration locks, creating
 * databases (TENANT_DATABASE_SERVERS_DIRECT).
 */
describe('tenant databases behind PgBouncer (transaction mode)', () => {
  let dir: string;
  let bouncer: ChildProcess;
  let bouncerPort: number;
  let bouncerErrors = '';
  let through: string;
  let t: TestApp;
  let platformToken: string;

  beforeAll(async () => {
    const server = new URL(serverUrl());
    dir = mkdtempSync(join(tmpdir(), 'iam-pgbouncer-'));
    chmodSync(dir, 0o777); // pgbouncer drops to the postgres user, which must read its files and write its log and pid file
    bouncerPort = await freePort();
    const password = server.password ? ` password=${decodeURIComponent(server.password)}` : '';
    writeFileSync(
      join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${server.hostname} port=${server.port || 5432} user=${decodeURIComponent(server.username)}${password}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${bouncerPort}`,
        'unix_socket_dir =',
        'auth_type = any',
        'pool_mode = transaction',
        'max_client_conn = 500',
        'default_pool_size = 10',
        `admin_users = ${decodeURIComponent(server.username) || 'postgres'}`,
        `logfile = ${join(dir, 'pgbouncer.log')}`,
        `pidfile = ${join(dir, 'pgbouncer.pid')}`,
        '',
      ].join('\n'),
      { mode: 0o644 },
    );
    // As root it must drop to another user (PgBouncer refuses to run as root).
    const args = process.getuid?.() === 0 ? ['-u', 'postgres', join(dir, 'pgbouncer.ini')] : [join(dir, 'pgbouncer.ini')];
    bouncer = spawn(PGBOUNCER, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    bouncer.stderr?.on('data', (chunk: Buffer) => (bouncerErrors += chunk.toString()));
    through = `postgres://${server.username || 'postgres'}@127.0.0.1:${bouncerPort}/postgres`;
    await eventually(
      async () => {
        const c = new Client({ connectionString: through });
        await c.connect();
        await c.end();
        return true;
      },
      10_000,
      `PgBouncer to accept connections (${bouncerErrors.trim() || 'no error output'})`,
      { retryOnError: true },
    );
    t = await startTestApp({ tenancyMode: 'pooled', env: { TENANT_DATABASE_SERVERS: `pooled=${through}`, TENANT_DATABASE_SERVERS_DIRECT: `pooled=${serverUrl()}` } });
    platformToken = await t.platformToken();
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    bouncer?.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('provisions a tenant there, signs in, introspects, and refuses the token of a deleted user at once (the change relayed from behind the pooler to the main database)', async () => {
    const res = await t
      .http()
      .post('/api/v1/tenants')
      .set('Authorization', `Bearer ${platformToken}`)
      .send({ slug: 'bounced', name: 'Bounced', adminEmail: 'admin@bounced.test', adminPassword: 'bounced-admin-password', databaseServer: 'pooled' });
    expect(res.status).toBe(200);
    expect(res.body.databaseServer).toBe('pooled');
    const sectorID = res.body.sector.sectorID as string;
    const adminToken = await t.login('admin@bounced.test', 'bounced-admin-password', sectorID);

    const created = await t.http().post(`/api/v1/sectors/${sectorID}/users`).set('Authorization', `Bearer ${adminToken}`).send({ email: 'member@bounced.test', password: 'member-password-1' });
    expect(created.status).toBe(200);
    const memberToken = await t.login('member@bounced.test', 'member-password-1', sectorID);
    const introspect = () => t.http().post('/api/v1/introspect').set('Authorization', `Bearer ${adminToken}`).send({ token: memberToken });
    for (let i = 0; i < 12; i++) expect((await introspect()).body.sub).toBe(created.body.sub);

    // The tenant's pool goes through PgBouncer: its admin console lists a pool for the tenant database.
    // The authorization-state cache listens on the main database only (one session per instance), never through PgBouncer.
    const tenantDatabase = `${t.databaseName}_t_${(res.body.tenantID as string).replace(/-/g, '')}`;
    const admin = new Client({ connectionString: through.replace(/\/postgres$/, '/pgbouncer') });
    await admin.connect();
    try {
      const pools = (await admin.query('SHOW POOLS')).rows as Array<{ database: string; pool_mode: string }>;
      expect(pools).toContainEqual(expect.objectContaining({ database: tenantDatabase, pool_mode: 'transaction' }));
    } finally {
      await admin.end();
    }
    await eventually(
      async () => (await t.sql<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'iam-auth-listener'`, [t.databaseName]))[0].n === 1,
      10_000,
      'the listener on the main database',
    );
    expect(await t.sql(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'iam-auth-listener'`, [tenantDatabase])).toEqual([]);
    const clientsAdmin = new Client({ connectionString: through.replace(/\/postgres$/, '/pgbouncer') });
    await clientsAdmin.connect();
    try {
      const clients = (await clientsAdmin.query('SHOW CLIENTS')).rows as Array<{ database: string; application_name: string }>;
      expect(clients.filter((c) => c.database === tenantDatabase).map((c) => c.application_name)).not.toContain('iam-auth-listener');
    } finally {
      await clientsAdmin.end();
    }

    const removed = await t.http().delete(`/api/v1/users/${created.body.sub}`).set('Authorization', `Bearer ${adminToken}`);
    expect(removed.status).toBe(200);
    expectWireError(await introspect(), 401, 16, 'TOKEN_INVALID');
  });
});
