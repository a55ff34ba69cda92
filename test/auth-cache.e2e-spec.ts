/**
 * The authorization-state cache across instances: two applications on one main
 * database (one deployment, two instances). Instance B serves a credential often
 * enough to cache its state; the change is made through instance A (or by hand in
 * SQL, bypassing every service) and B must refuse the credential as soon as the
 * commit's notification arrives. Also: B keeps refusing correctly while its
 * listener is down (it reads through), and the cache is really used (hits); and a
 * listener whose connection goes silently dead (nothing closes it, nothing arrives)
 * is given up by its heartbeat, long before the entries' TTL.
 */
import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { withDatabase } from '../src/database/data-source-options';
import { createApp } from '../src/main';
import { AuthStateCache } from '../src/tenancy/auth-state-cache';
import { createUser, provisionTenant, ProvisionedTenant, tenantSql } from './support/factories';
import { startSilencingProxy, SilencingProxy } from './support/silencing-proxy';
import { serverUrl, startTestApp, testConfig, TestApp } from './support/test-app';
import { eventually } from './support/wait';

/** How long the refusal may take to reach the other instance here (notification delivery; typically a few ms). */
const PROPAGATION_MS = 3_000;

describe.each(['pooled', 'schema'] as const)('authorization-state cache across two instances (%s tenancy)', (mode) => {
  let a: TestApp;
  let b: TestApp;
  let tenant: ProvisionedTenant;

  beforeAll(async () => {
    a = await startTestApp({ tenancyMode: mode });
    b = await startTestApp({ tenancyMode: mode, databaseName: a.databaseName });
    tenant = await provisionTenant(a);
  });

  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const introspectOn = (app: TestApp, caller: string, token = caller) =>
    app.http().post('/api/v1/introspect').set('Authorization', `Bearer ${caller}`).send({ token });
  const cacheOf = (app: TestApp) => app.app.get(AuthStateCache);

  /** Serves the credential on B until its state is cached there (a request answered without a database read). */
  async function warm(request: () => Promise<{ status: number }>, expected = 200): Promise<void> {
    await eventually(
      async () => {
        const before = cacheOf(b).hits;
        const res = await request();
        expect(res.status).toBe(expected);
        return cacheOf(b).hits > before;
      },
      10_000,
      'a cache hit on instance B',
    );
  }

  /** Polls B until it refuses; answers how long that took after the change returned. */
  async function refusedOnB(request: () => Promise<{ status: number; body: { details?: Array<{ reason?: string }> } }>, status: number, reason?: string): Promise<number> {
    const t0 = Date.now();
    await eventually(
      async () => {
        const res = await request();
        if (res.status !== status) return false;
        if (reason) expect(res.body.details?.[0]?.reason).toBe(reason);
        return true;
      },
      PROPAGATION_MS,
      `refusal with ${status} on instance B`,
    );
    return Date.now() - t0;
  }

  async function newUser(isAdmin = false): Promise<{ sub: string; token: string }> {
    const email = `u-${Math.random().toString(36).slice(2, 10)}@example.com`;
    const sub = await createUser(a, tenant.adminToken, tenant.rootSectorID, { email, password: 'user-password-1', isAdmin });
    return { sub, token: await a.login(email, 'user-password-1', tenant.rootSectorID) };
  }

  it('listens to the tenant database and serves repeated requests from the cache', async () => {
    const user = await newUser();
    await warm(() => introspectOn(b, user.token));
    expect(cacheOf(b).listening).toBeGreaterThan(0);
  });

  it("refuses a deleted user's token on the other instance", async () => {
    const user = await newUser();
    await warm(() => introspectOn(b, user.token));
    await a.http().delete(`/api/v1/users/${user.sub}`).set('Authorization', `Bearer ${tenant.adminToken}`).expect(200);
    await refusedOnB(() => introspectOn(b, user.token), 401, 'TOKEN_INVALID');
    // Also as the token being introspected by a valid caller.
    const res = await introspectOn(b, tenant.adminToken, user.token);
    expect(res.status).toBe(401);
  });

  it("takes a demoted admin's rights away on the other instance", async () => {
    const admin = await newUser(true);
    const list = () => b.http().get(`/api/v1/sectors/${tenant.rootSectorID}/users`).set('Authorization', `Bearer ${admin.token}`);
    await warm(list);
    await a.http().put(`/api/v1/users/${admin.sub}`).set('Authorization', `Bearer ${tenant.adminToken}`).send({ isAdmin: false, setAdminExplicitly: true }).expect(200);
    await refusedOnB(list, 403);
    const res = await introspectOn(b, tenant.adminToken, admin.token);
    expect(res.status).toBe(200);
    expect(res.body.isAdmin).toBe(false);
  });

  it('refuses a revoked API token on the other instance', async () => {
    const created = await a.http().post(`/api/v1/sectors/${tenant.rootSectorID}/tokens`).set('Authorization', `Bearer ${tenant.adminToken}`).send({ name: 'cache' }).expect(200);
    const apiToken = created.body.token as string;
    const list = () => b.http().get(`/api/v1/sectors/${tenant.rootSectorID}/users`).set('Authorization', `Bearer ${apiToken}`);
    await warm(list);
    await a.http().delete(`/api/v1/sectors/${tenant.rootSectorID}/tokens/${created.body.apiToken.id}`).set('Authorization', `Bearer ${tenant.adminToken}`).expect(200);
    await refusedOnB(list, 401, 'TOKEN_INVALID');
  });

  it('ends a logged-out session on the other instance', async () => {
    const user = await newUser();
    await warm(() => introspectOn(b, user.token));
    await a.http().post('/api/v1/logout').set('Authorization', `Bearer ${user.token}`).expect(200);
    await refusedOnB(() => introspectOn(b, user.token), 401, 'SESSION_REVOKED');
  });

  it("applies a sector's changed settings on the other instance (who may read users)", async () => {
    const settings = (body: Record<string, unknown>) =>
      a.http().put(`/api/v1/sectors/${tenant.rootSectorID}/settings`).set('Authorization', `Bearer ${tenant.adminToken}`).send(body).expect(200);
    await settings({ AllowUserReadForNonAdmins: true });
    const member = await newUser();
    const list = () => b.http().get(`/api/v1/sectors/${tenant.rootSectorID}/users`).set('Authorization', `Bearer ${member.token}`);
    await eventually(async () => (await list()).status === 200, 5_000, 'the member reading users on B');
    await warm(list);
    await settings({ AllowUserReadForNonAdmins: false });
    await refusedOnB(list, 403);
  });

  it('refuses at once on the instance that made the change (no wait for its own notification)', async () => {
    for (let i = 0; i < 5; i++) {
      const created = await a.http().post(`/api/v1/sectors/${tenant.rootSectorID}/tokens`).set('Authorization', `Bearer ${tenant.adminToken}`).send({ name: `local-${i}` }).expect(200);
      const apiToken = created.body.token as string;
      const list = () => a.http().get(`/api/v1/sectors/${tenant.rootSectorID}/users`).set('Authorization', `Bearer ${apiToken}`);
      for (let j = 0; j < 12; j++) expect((await list()).status).toBe(200);
      await a.http().delete(`/api/v1/sectors/${tenant.rootSectorID}/tokens/${created.body.apiToken.id}`).set('Authorization', `Bearer ${tenant.adminToken}`).expect(200);
      expect((await list()).status).toBe(401);
    }
    const user = await newUser(true);
    const read = () => a.http().get(`/api/v1/sectors/${tenant.rootSectorID}/users`).set('Authorization', `Bearer ${user.token}`);
    for (let j = 0; j < 12; j++) expect((await read()).status).toBe(200);
    await a.http().put(`/api/v1/users/${user.sub}`).set('Authorization', `Bearer ${tenant.adminToken}`).send({ isAdmin: false, setAdminExplicitly: true }).expect(200);
    expect((await read()).status).toBe(403);
    await a.http().post('/api/v1/logout').set('Authorization', `Bearer ${user.token}`).expect(200);
    expect((await introspectOn(a, user.token)).status).toBe(401);
  });

  it("checks each instance's requests with that instance's own services (two instances in one process)", async () => {
    const created = await a.http().post(`/api/v1/sectors/${tenant.rootSectorID}/tokens`).set('Authorization', `Bearer ${tenant.adminToken}`).send({ name: 'own' }).expect(200);
    const looked = (app: TestApp) => cacheOf(app).hits + cacheOf(app).misses;
    const [onA, onB] = [looked(a), looked(b)];
    for (let j = 0; j < 3; j++) {
      await a.http().get(`/api/v1/sectors/${tenant.rootSectorID}/users`).set('Authorization', `Bearer ${created.body.token as string}`).expect(200);
    }
    expect(looked(a)).toBeGreaterThan(onA);
    expect(looked(b)).toBe(onB);
  });

  it('hears a change made by hand in SQL, bypassing the services', async () => {
    const user = await newUser();
    await warm(() => introspectOn(b, user.token));
    await tenantSql(a, tenant.tenantID, 'UPDATE sessions SET revoked_at = now() WHERE user_id = $1', [user.sub]);
    await refusedOnB(() => introspectOn(b, user.token), 401, 'SESSION_REVOKED');
    const admin = await newUser(true);
    const list = () => b.http().get(`/api/v1/sectors/${tenant.rootSectorID}/users`).set('Authorization', `Bearer ${admin.token}`);
    await warm(list);
    await tenantSql(a, tenant.tenantID, 'UPDATE users SET is_admin = false WHERE id = $1', [admin.sub]);
    await refusedOnB(list, 403);
  });

  it('reads through while its listener is down, and caches again once it is back', async () => {
    const user = await newUser();
    await warm(() => introspectOn(b, user.token));
    // Kill every auth listener of this deployment's databases (its main database and its tenants'), never another spec's.
    await a.sql(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = 'iam-auth-listener' AND pid <> pg_backend_pid() AND (datname = $1 OR starts_with(datname, $2))`,
      [a.databaseName, `${a.databaseName}_`],
    );
    // A change made while nobody listens is still seen at once: nothing stale survives the lost connection.
    await tenantSql(a, tenant.tenantID, 'DELETE FROM users WHERE id = $1', [user.sub]);
    await refusedOnB(() => introspectOn(b, user.token), 401, 'TOKEN_INVALID');
    const other = await newUser();
    await warm(() => introspectOn(b, other.token));
  });
});

describe('authorization-state cache: a listener whose connection dies silently', () => {
  /** Heartbeat interval of instance B here; its entries' TTL is ten minutes, so only the heartbeat can end its trust. */
  const HEARTBEAT_MS = 200;
  let a: TestApp;
  let proxy: SilencingProxy;
  let b: INestApplication;
  let bHttp: () => request.Agent;
  let tenant: ProvisionedTenant;

  beforeAll(async () => {
    a = await startTestApp();
    // Instance B reaches the database server (main and tenant databases) only through the proxy.
    proxy = await startSilencingProxy(serverUrl());
    const url = withDatabase(proxy.url(serverUrl()), a.databaseName);
    b = await createApp(testConfig(url, { AUTH_CACHE_HEARTBEAT_MS: String(HEARTBEAT_MS), AUTH_CACHE_TTL_MS: '600000' }), url);
    await b.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(b.getHttpServer().address() as { port: number }).port}`;
    bHttp = () => request.agent(baseUrl);
    tenant = await provisionTenant(a);
  });

  afterAll(async () => {
    await b?.close();
    await proxy?.close();
    await a?.close();
  });

  const cacheOfB = () => b.get(AuthStateCache);
  const newApiToken = async (name: string) => {
    const created = await a.http().post(`/api/v1/sectors/${tenant.rootSectorID}/tokens`).set('Authorization', `Bearer ${tenant.adminToken}`).send({ name }).expect(200);
    return { token: created.body.token as string, id: created.body.apiToken.id as string };
  };
  const revoke = (id: string) => a.http().delete(`/api/v1/sectors/${tenant.rootSectorID}/tokens/${id}`).set('Authorization', `Bearer ${tenant.adminToken}`).expect(200);
  const listOnB = (token: string) => bHttp().get(`/api/v1/sectors/${tenant.rootSectorID}/users`).set('Authorization', `Bearer ${token}`);

  /** Serves the token on B until B answers it from its cache. */
  async function warmOnB(token: string): Promise<void> {
    await eventually(
      async () => {
        const before = cacheOfB().hits;
        expect((await listOnB(token)).status).toBe(200);
        return cacheOfB().hits > before;
      },
      10_000,
      'a cache hit on instance B',
    );
  }

  it('keeps caching while the heartbeats come back', async () => {
    const { token } = await newApiToken('beating');
    await warmOnB(token);
    const listening = cacheOfB().listening;
    expect(listening).toBeGreaterThan(0);
    // Many heartbeat intervals later the listener is still the live one and still serves hits.
    const hits = cacheOfB().hits;
    await eventually(async () => {
      expect((await listOnB(token)).status).toBe(200);
      return cacheOfB().hits >= hits + 20;
    }, 10_000);
    expect(cacheOfB().listening).toBe(listening);
  });

  it("refuses a token revoked through the other instance at B's next request, even while B's listener hears late", async () => {
    const { token, id } = await newApiToken('late');
    await warmOnB(token);
    // B hears every notification 150 ms late (under the 300 ms heartbeat deadline: the listener stays live).
    expect(proxy.delay('iam-auth-listener', 150)).toBeGreaterThan(0);
    try {
      await revoke(id);
      // Answered by A after the commit; B's next request waits for its barrier, which comes
      // back after the revocation's notification: refused, not answered from the cache.
      const res = await listOnB(token);
      expect({ status: res.status, reason: res.body.details?.[0]?.reason }).toEqual({ status: 401, reason: 'TOKEN_INVALID' });
      expect(cacheOfB().listening).toBe(1);
    } finally {
      proxy.delay('iam-auth-listener', 0);
    }
  });

  it('refuses a token revoked through the other instance once the heartbeat finds the listener dead, not at the TTL', async () => {
    const { token, id } = await newApiToken('silenced');
    await warmOnB(token);
    expect(proxy.silence('iam-auth-listener')).toBeGreaterThan(0);
    await revoke(id);
    // B never hears the notification; its heartbeat stops coming back, B gives the listener up,
    // drops what it cached and reads the database: the token is refused within a few heartbeat
    // intervals (TTL here: ten minutes).
    await eventually(
      async () => {
        const res = await listOnB(token);
        if (res.status !== 401) return false;
        expect(res.body.details?.[0]?.reason).toBe('TOKEN_INVALID');
        return true;
      },
      20 * HEARTBEAT_MS + 5_000,
      'the refusal on instance B',
    );
  });

  it('listens again on a new connection, and hears revocations on it', async () => {
    const { token, id } = await newApiToken('after');
    // A new listener is admitted after the retry pause; the new connection is carried normally.
    await eventually(
      async () => {
        const before = cacheOfB().hits;
        expect((await listOnB(token)).status).toBe(200);
        return cacheOfB().listening > 0 && cacheOfB().hits > before;
      },
      20_000,
      'caching on a new listener of instance B',
    );
    await revoke(id);
    await eventually(async () => (await listOnB(token)).status === 401, 3_000, 'the refusal on instance B');
  });
});
