import { Client } from 'pg';
import { connectionBudget, TenantMode } from '../lib/config';
import { BenchContext } from '../lib/context';
import { machineBusyMs, processCpuMs, rssMiB } from '../lib/database';
import { ConnectionCounter } from '../lib/process-connections';
import {
  login,
  platformLogin,
  provisionTenant,
  storageClient,
  storageUrl,
  TENANT_ADMIN_PASSWORD,
  TenantFixture,
  TenantStorageRef,
  tenantStorages,
  useStorage,
  userLogin,
  userPasswordHash,
} from '../lib/fixture';
import { call, jwtClaims, ok } from '../lib/http';
import { LoadFigures, percentile, sleep } from '../lib/load';
import { runPrebuiltLoad } from '../lib/prebuilt-load';
import { fmt, log, ratioOf, Row, times } from '../lib/report';
import { deployment, ServiceInstance, startService } from '../lib/service';
import { bcryptPerSecond, boundOf, boundText, loginSeconds } from './login';
import { describe, Kind, measure, Sample, summarize } from './revocation';

/** How often the platform admin signs in again while provisioning (well inside a token's lifetime). */
const PLATFORM_TOKEN_REFRESH_MS = 10 * 60_000;
/** Tenants provisioned at a time. */
const PARALLEL = 4;
/** Sign-ins and warm-up introspections in flight at a time. */
const REQUESTS_PARALLEL = 8;
/** pg Clients seeding users at a time. */
const SEED_CLIENTS = 4;
/** The application_name of the dblink connections tenant databases relay their changes over (src/tenancy/auth-relay.ts). */
const RELAY_APPLICATION = 'iam-auth-relay';
const RSS_GOAL_MIB = 400;
const P99_GOAL_MS = 20;

/** Seeds `$4` users of one sector (`u<i>@<$2>`, email verified, password hash `$3`) and answers their usernames. */
const SEED_SQL = `
INSERT INTO users (id, sector_id, username, email, email_verified, password_hash, is_admin)
SELECT gen_random_uuid(), $1::uuid, 'u' || i || '@' || $2, 'u' || i || '@' || $2, true, $3, false
FROM generate_series(1, $4::int) AS i
RETURNING username`;

/** Tenants whose storage a fresh connection is timed on (the connect cost of a miss). */
const CONNECT_SAMPLES = 50;
/** Time left after the connect samples for the server's last backends to exit (their CPU is counted). */
const CONNECT_SETTLE_MS = 300;

async function inParallel<T, R>(items: T[], parallel: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/**
 * Every tenant's tokens in one rotation where consecutive entries belong to
 * different tenants (whenever there are two): round j takes the j-th token of each
 * tenant, the tenants in a fresh random order each round, the first never the
 * previous round's last.
 */
function interleaved(perTenant: string[][]): string[] {
  const order = perTenant.map((_, i) => i);
  const rounds = Math.max(0, ...perTenant.map((t) => t.length));
  const out: string[] = [];
  let last = -1;
  for (let j = 0; j < rounds; j++) {
    shuffle(order);
    if (order.length > 1 && order[0] === last) [order[0], order[order.length - 1]] = [order[order.length - 1], order[0]];
    for (const i of order) if (j < perTenant[i].length) out.push(perTenant[i][j]);
    last = order[order.length - 1];
  }
  return out;
}

interface PoolLimits {
  env: Record<string, string>;
  budget: number;
}

/**
 * The pool settings of the measured instance A and of the second instance B (the
 * revocation step) for `headroom` free server connections (a stock PostgreSQL
 * allows 100), and the budgets they set on their connections (connectionBudget).
 * Room is kept for the benchmark's own connections (10), for B — a small main pool
 * and at most 4 tenant pools: it serves one probe at a time — and for A's main
 * pool and two listeners; A's tenant pools share the rest. In pooled mode each
 * tenant backend that relayed a change keeps its relay connection to the main
 * database for as long as it lives, so a tenant pool can cost the server twice
 * its size: the pool count is halved to leave room for those. Schema-mode tenants
 * live in the main database and relay nothing. DB_POOL_MAX, TENANT_POOL_MAX and
 * TENANT_CONNECTIONS_MAX in the environment override A's defaults.
 */
function poolLimits(headroom: number, mode: TenantMode): { a: PoolLimits; b: PoolLimits } {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  const limits = (mainPoolMax: number, tenantPoolMax: number, tenantConnectionsMax: number): PoolLimits => ({
    env: { DB_POOL_MAX: String(mainPoolMax), TENANT_POOL_MAX: String(tenantPoolMax), TENANT_CONNECTIONS_MAX: String(tenantConnectionsMax) },
    budget: connectionBudget({ mainPoolMax, tenantConnectionsMax, tenantPoolMax }),
  });
  const main = env('DB_POOL_MAX', 10);
  const perTenant = env('TENANT_POOL_MAX', 2);
  const b = limits(Math.min(main, 4), perTenant, 4);
  const perPool = mode === 'pooled' ? 2 * perTenant : perTenant;
  const pools = env('TENANT_CONNECTIONS_MAX', Math.max(2, Math.floor((headroom - 10 - b.budget - main - 2) / perPool)));
  return { a: limits(main, perTenant, pools), b };
}

/** CPU a phase used, in ms: the service's, PostgreSQL's (null when it is not on this machine) and the rest of the machine's but the benchmark's. */
interface CpuSplit {
  serviceMs: number;
  postgresMs: number | null;
  othersMs: number;
}

/** "284 ms service + 14 ms PostgreSQL + 140 ms rest of the machine" (or "284 ms service + 154 ms database and rest of the machine" when PostgreSQL's share is unknown). */
function cpuText(split: CpuSplit, show: (ms: number) => string, unit: string, withService = true): string {
  const parts = withService ? [`${show(split.serviceMs)} ${unit} service`] : [];
  if (split.postgresMs === null) parts.push(`${show(split.othersMs)} ${unit} database and rest of the machine`);
  else parts.push(`${show(split.postgresMs)} ${unit} PostgreSQL`, `${show(split.othersMs)} ${unit} rest of the machine`);
  return parts.join(' + ');
}

interface Snapshot {
  rssMiB: number | null;
  /** The instance's DB connections (from /proc). */
  processConnections: number | null;
  /** The server's view (pg_stat_activity on the deployment's databases), without relay connections and the benchmark's own. */
  serverConnections: number;
  /** Relay connections from tenant databases to the main database (application_name iam-auth-relay). */
  relayConnections: number;
}

interface SeededUser {
  token: string;
  sub: string;
}

/**
 * Seeds `users` users per tenant straight into each tenant's storage with a
 * precomputed hash, SEED_CLIENTS clients at a time (a client stays on its
 * database while the tenants do: schema mode reuses it, pooled mode reconnects per
 * tenant). Answers each tenant's usernames.
 */
async function seedUsers(mainUrl: string, tenants: TenantFixture[], storages: Map<string, TenantStorageRef>, users: number, hash: string): Promise<string[][]> {
  const out: string[][] = new Array(tenants.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(SEED_CLIENTS, tenants.length) }, async () => {
      let client: Client | undefined;
      let url = '';
      try {
        while (next < tenants.length) {
          const i = next++;
          const t = tenants[i];
          const ref = storages.get(t.tenantID);
          if (!ref) throw new Error(`tenant ${t.slug} (${t.tenantID}) is not in the directory`);
          const wanted = storageUrl(mainUrl, ref);
          if (!client || url !== wanted) {
            await client?.end();
            client = new Client({ connectionString: wanted, application_name: 'iam-bench-seed' });
            url = wanted;
            await client.connect();
          }
          await useStorage(client, ref);
          const { rows } = await client.query<{ username: string }>(SEED_SQL, [ref.rootSectorId, `${t.slug}.test`, hash, users]);
          out[i] = rows.map((r) => r.username);
        }
      } finally {
        await client?.end().catch(() => undefined);
      }
    }),
  );
  return out;
}

/** Disk kept free beyond the tenant databases' estimate (WAL, sessions, the server's own files). */
const DISK_RESERVE_BYTES = 4 * 2 ** 30;
/** Growth of a tenant database past its freshly provisioned size (seeded users, sessions, audit rows). */
const DATABASE_GROWTH = 1.2;

const gib = (bytes: number) => fmt(bytes / 2 ** 30, 1);

/**
 * Whether `tenants` databases of the size of the deployment's largest tenant
 * database so far (read after the first provisioning) fit on the server's disk with
 * DISK_RESERVE_BYTES to spare; when the data directory is not on this machine the
 * answer is yes. Pooled mode at ten thousand tenants needs tens of gigabytes:
 * PostgreSQL's catalogue alone is about 7.5 MB per database.
 */
async function diskRoom(dbs: BenchContext['dbs'], prefix: string, tenants: number): Promise<{ fits: boolean; perDatabaseBytes: number; neededBytes: number; freeBytes: number | null }> {
  const perDatabaseBytes = await dbs.largestTenantDatabaseBytes(prefix);
  const freeBytes = await dbs.freeDiskBytes();
  const neededBytes = Math.ceil((tenants - 1) * perDatabaseBytes * DATABASE_GROWTH);
  return { fits: freeBytes === null || neededBytes + DISK_RESERVE_BYTES <= freeBytes, perDatabaseBytes, neededBytes, freeBytes };
}

/** Seconds without load over which the database's own CPU use is measured (before the login load). */
const IDLE_SECONDS = 3;
/** How often the samplers beside the loads count the instance's sockets from /proc (the rest of a sample every 500 ms). */
const PROCESS_COUNT_EVERY_MS = 5000;

/** An amount (connections opened, CPU ms) per login answered during a login load. */
function perLogin(amount: number, logins: LoadFigures, digits = 2): string {
  return logins.requests > 0 ? fmt(amount / logins.requests, digits) : '—';
}

/**
 * Scenario 6, once per BENCH_TENANT_MODES mode (TENANCY_MODE), each on one fresh
 * deployment: BENCH_TENANTS tenants provisioned (PARALLEL at a time),
 * BENCH_TENANT_USERS users seeded by SQL in each tenant's storage and all signed in;
 * introspection rotating over one tenant's tokens, then over every tenant's
 * (consecutive requests on different tenants); password logins rotating over every
 * tenant's admin beside raw bcrypt; the instance's RSS and DB connections when
 * fresh, before the loads, during them (max of samples every 500 ms, the instance's
 * own sockets every 5 s) and 3 s after; and revocations on a second instance over
 * random tenants, through the API and in plain SQL.
 */
export async function tenantsScenario(ctx: BenchContext): Promise<void> {
  const modes: Record<string, Record<string, unknown>> = {};
  try {
    for (const mode of ctx.config.tenantModes) {
      const figuresOfMode: Record<string, unknown> = { mode };
      modes[mode] = figuresOfMode;
      try {
        await tenantsInMode(ctx, mode, figuresOfMode);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log(`tenants (${mode}) FAILED: ${message}`);
        ctx.report.fail(`tenants (${mode}): ${message.split('\n')[0]}`);
        figuresOfMode.error = message.split('\n')[0];
      }
    }
  } finally {
    ctx.report.set('tenants', {
      tenants: ctx.config.tenants,
      usersPerTenant: ctx.config.tenantUsers,
      provisionParallel: PARALLEL,
      bcryptCost: ctx.config.bcryptCost,
      modes,
    });
  }
}

async function tenantsInMode(ctx: BenchContext, mode: TenantMode, out: Record<string, unknown>): Promise<void> {
  const { config, dbs, report } = ctx;
  const label = (metric: string) => `[${mode}] ${metric}`;
  const db = await dbs.create();
  const dep = deployment(ctx.build, db, config.bcryptCost);
  const { a: limits, b: limitsOfB } = poolLimits(await dbs.headroom(), mode);
  Object.assign(out, { pools: limits.env, connectionBudget: limits.budget, poolsOfB: limitsOfB.env });
  const instance = await startService(dep, ctx.runDir, `service-tenants-${mode}`, { TENANCY_MODE: mode, ...limits.env });
  const A = instance.base;
  let b: ServiceInstance | undefined;
  // The instance's own sockets are counted off the load generator's thread (ConnectionCounter).
  const counter = new ConnectionCounter();
  try {
    // `sockets: false` skips the /proc count (processConnections null): the samplers beside the loads take it every
    // PROCESS_COUNT_EVERY_MS only, since each count costs tens of milliseconds of CPU with a thousand tenant sockets.
    const snapshot = async (sockets = true): Promise<Snapshot> => {
      const [{ total, byApplication }, processConnections] = await Promise.all([
        dbs.connections(db.name),
        sockets ? counter.count(instance.pid, dbs.port) : null,
      ]);
      const bench = Object.entries(byApplication).reduce((s, [app, n]) => s + (app.startsWith('iam-bench') ? n : 0), 0);
      const relay = byApplication[RELAY_APPLICATION] ?? 0;
      return { rssMiB: rssMiB(instance.pid), processConnections, serverConnections: total - relay - bench, relayConnections: relay };
    };
    const fresh = await snapshot();
    out.fresh = fresh;

    // 1. Provisioning.
    // A platform admin's token, signed in again every PLATFORM_TOKEN_REFRESH_MS: ten thousand tenants take longer than a token lives.
    let platform = platformLogin(A);
    let platformAt = performance.now();
    const platformToken = (): Promise<string> => {
      if (performance.now() - platformAt > PLATFORM_TOKEN_REFRESH_MS) {
        platform = platformLogin(A);
        platformAt = performance.now();
      }
      return platform;
    };
    await platform;
    log(`tenants (${mode}): provisioning ${config.tenants} tenants, ${PARALLEL} at a time`);
    let t0 = performance.now();
    let done = 1;
    const first = await provisionTenant(A, await platformToken(), 'scale', false);
    if (mode === 'pooled') {
      const room = await diskRoom(dbs, db.name, config.tenants);
      out.disk = room;
      if (!room.fits) {
        const message = `${config.tenants} tenant databases need about ${gib(room.neededBytes)} GB of disk (${fmt(room.perDatabaseBytes / 2 ** 20, 1)} MB each), ${gib(room.freeBytes ?? 0)} GB are free: mode skipped`;
        log(`tenants (${mode}): ${message}`);
        report.row({ metric: label(`${config.tenants} tenants`), value: 'skipped', baseline: message, ratio: '', goal: '', pass: null });
        return;
      }
    }
    const rest = await inParallel(Array.from({ length: config.tenants - 1 }), PARALLEL, async () => {
      const t = await provisionTenant(A, await platformToken(), 'scale', false);
      if (++done % 100 === 0) log(`tenants (${mode}): ${done} provisioned`);
      return t;
    });
    const tenants = [first, ...rest];
    const provisionSeconds = (performance.now() - t0) / 1000;
    out.provision = { seconds: provisionSeconds, tenantsPerSecond: config.tenants / provisionSeconds };
    log(`tenants (${mode}): ${config.tenants} provisioned in ${fmt(provisionSeconds, 1)} s`);
    report.row({
      metric: label(`provision ${config.tenants} tenants (${PARALLEL} parallel)`),
      value: `${fmt(config.tenants / provisionSeconds, 1)} tenants/s (${fmt(provisionSeconds, 1)} s)`,
      baseline: '',
      ratio: '',
      goal: '',
      pass: null,
    });

    // 2. Users seeded by SQL in each tenant's storage, one hash for all.
    const users = config.tenantUsers;
    t0 = performance.now();
    const hash = await userPasswordHash();
    const storages = await tenantStorages(dep.databaseUrl);
    log(`tenants (${mode}): seeding ${users} users in each of ${tenants.length} tenants (${SEED_CLIENTS} clients)`);
    const usernames = await seedUsers(dep.databaseUrl, tenants, storages, users, hash);
    const seedSeconds = (performance.now() - t0) / 1000;
    log(`tenants (${mode}): ${tenants.length * users} users seeded in ${fmt(seedSeconds, 1)} s`);

    // 3. Every seeded user signed in: one distinct token each.
    const total = tenants.length * users;
    log(`tenants (${mode}): signing in ${total} users, ${REQUESTS_PARALLEL} at a time`);
    t0 = performance.now();
    let signedIn = 0;
    const jobs = tenants.flatMap((t, ti) => usernames[ti].map((username) => ({ ti, username, sectorID: storages.get(t.tenantID)!.rootSectorId })));
    const tokens = await inParallel(jobs, REQUESTS_PARALLEL, async (job) => {
      const token = await userLogin(A, job.username, job.sectorID);
      if (++signedIn % 1000 === 0) log(`tenants (${mode}): ${signedIn} of ${total} signed in`);
      return token;
    });
    const signInSeconds = (performance.now() - t0) / 1000;
    const perTenant: SeededUser[][] = tenants.map(() => []);
    jobs.forEach((job, i) => perTenant[job.ti].push({ token: tokens[i], sub: String(jwtClaims(tokens[i]).sub) }));
    log(`tenants (${mode}): ${total} signed in in ${fmt(signInSeconds, 1)} s`);

    // 4. Warm-up: every token introspected once.
    t0 = performance.now();
    let warmErrors = 0;
    // The service answers an active token's claims (200), an inactive one 401.
    await inParallel(perTenant.flat(), REQUESTS_PARALLEL, async ({ token, sub }) => {
      const res = await call('POST', `${A}/api/v1/introspect`, { token }, token);
      if (res.status !== 200 || res.body.sub !== sub) warmErrors++;
    });
    const warmSeconds = (performance.now() - t0) / 1000;
    out.setup = { seedSeconds, signInSeconds, warmUpSeconds: warmSeconds, warmUpErrors: warmErrors, tokens: total };
    log(`tenants (${mode}): warm-up over ${total} tokens in ${fmt(warmSeconds, 1)} s, ${warmErrors} errors`);
    if (warmErrors) report.fail(`tenants (${mode}): ${warmErrors} of ${total} tokens not active at warm-up`);

    // 5-6. Loads, with the instance sampled every 500 ms.
    const samples: Array<Snapshot & { phase: string }> = [];
    let phase = 'before';
    let sampling = true;
    const before = await snapshot();
    let countedAt = 0;
    const sampler = (async () => {
      while (sampling) {
        // Raw bcrypt is measured with nothing of the benchmark's own running beside it, as after the loads.
        if (phase !== 'raw bcrypt') {
          const sockets = performance.now() - countedAt >= PROCESS_COUNT_EVERY_MS;
          if (sockets) countedAt = performance.now();
          samples.push({ phase, ...(await snapshot(sockets)) });
        }
        await sleep(500);
      }
    })();
    // Transactions committed in the deployment's databases during each load: a cached hot path commits next to none.
    const commits: Record<string, number> = {};
    // Connections opened to the deployment's databases during each load (by anyone: the service, its relays; the benchmark opens none then).
    const sessions: Record<string, number> = {};
    // CPU used during each load: the service's, PostgreSQL's (when it runs on this machine) and the rest of the
    // machine's without the benchmark's own (kernel threads, other daemons; everything but the service when
    // PostgreSQL's own is unknown).
    const cpu: Record<string, CpuSplit> = {};
    const counted = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const [c0, s0] = [await dbs.commits(db.name), await dbs.sessions(db.name)];
      const [busy0, service0, postgres0, bench0] = [machineBusyMs(), processCpuMs(instance.pid) ?? 0, dbs.postgresCpuMs(), process.cpuUsage()];
      const result = await work();
      const benchUs = process.cpuUsage(bench0);
      const serviceMs = (processCpuMs(instance.pid) ?? 0) - service0;
      const postgres1 = dbs.postgresCpuMs();
      const postgresMs = postgres0 === null || postgres1 === null ? null : postgres1 - postgres0;
      const othersMs = Math.max(0, machineBusyMs() - busy0 - serviceMs - (postgresMs ?? 0) - (benchUs.user + benchUs.system) / 1000);
      cpu[name] = { serviceMs, postgresMs, othersMs };
      commits[name] = (await dbs.commits(db.name)) - c0;
      sessions[name] = (await dbs.sessions(db.name)) - s0;
      return result;
    };
    // Prebuilt requests (runPrebuiltLoad): rotating over thousands of tokens costs the generator no more than one fixed request.
    const introspect = (rotation: string[], duration: number) =>
      runPrebuiltLoad({
        url: `${A}/api/v1/introspect`,
        connections: config.connections,
        duration,
        requests: rotation.map((token) => ({
          method: 'POST',
          path: '/api/v1/introspect',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ token }),
        })),
      });
    const one = Math.floor(Math.random() * tenants.length);
    const oneTokens = perTenant[one].map((u) => u.token);
    const allTokens = interleaved(perTenant.map((list) => list.map((u) => u.token)));
    const loginConnections = Math.max(2, config.cores * 2);
    let single: LoadFigures;
    let spread: LoadFigures;
    let logins: LoadFigures;
    let rawBefore = 0;
    try {
      phase = 'warm-up';
      await introspect(allTokens, 2);
      phase = 'one tenant';
      log(`tenants (${mode}): introspection over the ${oneTokens.length} users of one tenant, ${config.connections} connections`);
      single = await counted('oneTenant', () => introspect(oneTokens, config.seconds));
      phase = 'all tenants';
      log(`tenants (${mode}): introspection over all ${tenants.length} tenants × ${users} users`);
      spread = await counted('allTenants', () => introspect(allTokens, config.seconds));
      // The database's CPU with no load at all (autovacuum visiting a thousand databases or tables, checkpoints): what the loads' figures include anyway.
      phase = 'idle';
      await counted('idle', () => sleep(IDLE_SECONDS * 1000));
      // Raw bcrypt right before and right after the login load, beside this mode's deployment, still running: PostgreSQL's
      // background work differs by mode (autovacuum visits a thousand databases in pooled mode), and the bound is what the
      // machine leaves for hashing meanwhile; the mean of the two, so that the machine's drift during the load weighs half.
      phase = 'raw bcrypt';
      log(`tenants (${mode}): raw bcrypt`);
      rawBefore = await bcryptPerSecond(config.bcryptCost, Math.min(loginSeconds(ctx), 5));
      phase = 'logins';
      log(`tenants (${mode}): logins over the admins of all ${tenants.length} tenants, ${loginConnections} connections`);
      logins = await counted('logins', () =>
        runPrebuiltLoad({
          url: `${A}/api/v1/login/password`,
          connections: loginConnections,
          duration: loginSeconds(ctx),
          requests: tenants.map((t) => ({
            method: 'POST',
            path: '/api/v1/login/password',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ username: t.adminEmail, password: TENANT_ADMIN_PASSWORD, sectorID: t.sectorID }),
          })),
        }),
      );
    } finally {
      sampling = false;
      await sampler;
    }
    await sleep(3000);
    const after = await snapshot();
    log(`tenants (${mode}): raw bcrypt`);
    const rawAfter = await bcryptPerSecond(config.bcryptCost, Math.min(loginSeconds(ctx), 5));
    const bound = boundOf(rawBefore, rawAfter);
    const raw = bound.mean;
    const during = samples.filter((s) => s.phase !== 'before');
    const maxOf = (list: Snapshot[], k: keyof Snapshot) => Math.max(0, ...list.map((s) => s[k] ?? 0));
    const duringMax: Snapshot = {
      rssMiB: maxOf(during, 'rssMiB'),
      processConnections: maxOf(during, 'processConnections'),
      serverConnections: maxOf(during, 'serverConnections'),
      relayConnections: maxOf(during, 'relayConnections'),
    };
    const all = [fresh, before, duringMax, after];
    Object.assign(out, {
      introspection: { connections: config.connections, oneTenant: single, allTenants: spread, oneTenantIndex: one },
      commitsDuringLoads: commits,
      connectionsOpenedDuringLoads: sessions,
      cpuDuringLoads: cpu,
      login: { connections: loginConnections, ...logins, bcryptPerSecond: raw, bcrypt: bound },
      before,
      duringMax,
      after,
      samples,
    });

    // 8. Revocation on a second instance over random tenants (its rows follow the others').
    let revocation: Awaited<ReturnType<typeof revocationOverTenants>> | undefined;
    try {
      revocation = await revocationOverTenants(ctx, mode, dep.databaseUrl, tenants, perTenant, storages, A, async () => {
        b = await startService(dep, ctx.runDir, `service-tenants-${mode}-b`, { TENANCY_MODE: mode, ...limitsOfB.env });
        return b.base;
      });
      out.revocation = revocation.figures;
    } catch (err) {
      const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
      log(`tenants (${mode}): revocation FAILED: ${message}`);
      report.fail(`tenants (${mode}): revocation: ${message}`);
      out.revocation = { error: message };
    }
    // Relay connections left by the revocations (a tenant backend keeps its relay connection while it lives).
    const relayAfterRevocation = (await snapshot()).relayConnections;
    out.relayAfterRevocation = relayAfterRevocation;

    // What a miss costs beyond its query when the tenant's pool is closed: a new connection to its storage (and, in schema mode, its search_path).
    // Its CPU too, per connection, less the idle rate measured before the login load: PostgreSQL's own when it runs on
    // this machine (a backend's start and end), else the machine's busy time less the benchmark's own.
    const connectMs: number[] = [];
    const [connectBusy0, connectPostgres0, connectBench0, connectT0] = [machineBusyMs(), dbs.postgresCpuMs(), process.cpuUsage(), performance.now()];
    for (let i = 0; i < CONNECT_SAMPLES; i++) {
      const ref = storages.get(tenants[Math.floor(Math.random() * tenants.length)].tenantID)!;
      const c0 = performance.now();
      const client = await storageClient(dep.databaseUrl, ref, 'iam-bench-connect');
      await client.query('SELECT 1');
      connectMs.push(performance.now() - c0);
      await client.end();
    }
    await sleep(CONNECT_SETTLE_MS); // the last backends' exit
    const connectBench = process.cpuUsage(connectBench0);
    const connectPostgres1 = dbs.postgresCpuMs();
    const idleDuring = (idleMs: number) => (idleMs / (IDLE_SECONDS * 1000)) * (performance.now() - connectT0);
    const idlePostgresMs = cpu.idle.postgresMs;
    const byPostgres = connectPostgres0 !== null && connectPostgres1 !== null && idlePostgresMs !== null;
    const connectUsedMs = byPostgres
      ? connectPostgres1 - connectPostgres0 - idleDuring(idlePostgresMs)
      : machineBusyMs() - connectBusy0 - (connectBench.user + connectBench.system) / 1000 - idleDuring(cpu.idle.othersMs);
    const connectCpuMs = Math.max(0, connectUsedMs) / CONNECT_SAMPLES;
    out.connectOnMissMs = { p50: percentile(connectMs, 50), p99: percentile(connectMs, 99), cpuMs: connectCpuMs, samples: CONNECT_SAMPLES };
    report.row({
      metric: label(`connect cost of a miss on a closed tenant pool (${CONNECT_SAMPLES} random tenants)`),
      value: `p50 ${fmt(percentile(connectMs, 50), 1)} ms, p99 ${fmt(percentile(connectMs, 99), 1)} ms; CPU ${fmt(connectCpuMs, 1)} ms a connection (start and end; ${byPostgres ? "PostgreSQL's" : 'outside the benchmark'})`,
      baseline: '',
      ratio: '',
      goal: '',
      pass: null,
    });

    const ratio = ratioOf(spread.rps, single.rps);
    report.row({
      metric: label(`introspection over all ${tenants.length} tenants × ${users} users`),
      value: `${fmt(spread.rps)} req/s, p99 ${spread.p99} ms, errors ${spread.errors}`,
      baseline: `one tenant ${fmt(single.rps)} req/s (p99 ${single.p99} ms)`,
      ratio: times(spread.rps, single.rps),
      goal: `≥ 0.8× one tenant, p99 < ${P99_GOAL_MS} ms, 0 errors`,
      pass: ratio !== null && ratio >= 0.8 && spread.p99 < P99_GOAL_MS && spread.errors === 0,
    });
    const loginRatio = ratioOf(logins.rps, raw);
    report.row({
      metric: label(`password login over all ${tenants.length} tenants' admins (${loginConnections} conn)`),
      value: `${fmt(logins.rps, 1)} logins/s (p99 ${logins.p99} ms, errors ${logins.errors}; per login: ${perLogin(sessions.logins, logins)} connections opened, CPU ${cpuText(cpu.logins, (ms) => perLogin(ms, logins, 0), 'ms')}; idle: ${cpuText(cpu.idle, (ms) => fmt(ms / IDLE_SECONDS), 'ms/s', false)})`,
      baseline: boundText(config.bcryptCost, bound),
      ratio: times(logins.rps, raw),
      goal: '≥ 0.9× bcrypt',
      pass: loginRatio !== null && loginRatio >= 0.9 && logins.errors === 0,
    });
    const rssMax = maxOf(all, 'rssMiB');
    report.row({
      metric: label('service RSS fresh / before loads / max during / after'),
      value: `${fmt(fresh.rssMiB)} / ${fmt(before.rssMiB)} / ${fmt(duringMax.rssMiB)} / ${fmt(after.rssMiB)} MiB`,
      baseline: '',
      ratio: '',
      goal: `≤ ${RSS_GOAL_MIB} MiB`,
      pass: rssMax <= RSS_GOAL_MIB,
    });
    const connectionsMax = Math.max(maxOf(all, 'processConnections'), maxOf(all, 'serverConnections'));
    const series = (k: keyof Snapshot) => all.map((s) => fmt(s[k])).join(' / ');
    report.row({
      metric: label('DB connections fresh / before loads / max during / after'),
      value: `${series('processConnections')} (server ${series('serverConnections')}; relay, apart: ${series('relayConnections')}, ${relayAfterRevocation} after the revocations)`,
      baseline: `budget ${limits.env.DB_POOL_MAX} + ${limits.env.TENANT_CONNECTIONS_MAX}×${limits.env.TENANT_POOL_MAX} + 2`,
      ratio: '',
      goal: `≤ ${limits.budget}`,
      pass: connectionsMax <= limits.budget,
    });
    if (single.errors || spread.errors || logins.errors) {
      report.fail(`tenants (${mode}): ${single.errors + spread.errors} failed introspections, ${logins.errors} failed logins`);
    }
    log(
      `tenants (${mode}): introspection ${fmt(spread.rps)} req/s p99 ${spread.p99} ms over all (one tenant ${fmt(single.rps)} req/s p99 ${single.p99} ms); ` +
        `commits during one-tenant / all-tenants / login loads ${commits.oneTenant} / ${commits.allTenants} / ${commits.logins}; connections opened ${sessions.oneTenant} / ${sessions.allTenants} / ${sessions.logins}; logins ${fmt(logins.rps, 1)}/s (bcrypt ${fmt(raw, 1)}/s); RSS max ${fmt(rssMax)} MiB; connections max ${connectionsMax} (budget ${limits.budget}), relay max ${fmt(duringMax.relayConnections)}`,
    );

    for (const row of revocation?.rows ?? []) report.row(row);
  } finally {
    await counter.close();
    await b?.stop();
    await instance.stop();
  }
}

/**
 * BENCH_REVOCATION_REPS repetitions, each on a random tenant (all tenants taken in
 * a random order before any comes again) and one of its seeded users picked at
 * random: B accepts the user's token, then it is revoked — on even repetitions by
 * deleting the user through A (as the tenant's admin), on odd ones by a plain SQL
 * UPDATE of the user's sessions in the tenant's storage — and B is polled until it
 * refuses the token (revocation.ts `measure`).
 */
async function revocationOverTenants(
  ctx: BenchContext,
  mode: TenantMode,
  mainUrl: string,
  tenants: TenantFixture[],
  perTenant: SeededUser[][],
  storages: Map<string, TenantStorageRef>,
  A: string,
  startB: () => Promise<string>,
): Promise<{ figures: Record<string, unknown>; rows: Row[] }> {
  const { report } = ctx;
  const remaining = perTenant.map((list) => [...list]);
  const reps = Math.min(ctx.config.revocationReps, remaining.reduce((s, l) => s + l.length, 0));
  if (!reps) return { figures: { repetitions: 0 }, rows: [] };
  log(`tenants (${mode}): starting a second instance for revocation`);
  const B = await startB();
  const adminTokens = new Map<number, string>();
  const kinds = ['API change', 'plain SQL'] as const;
  const results: Record<(typeof kinds)[number], { samples: Array<Sample & { tenant: string }>; errors: string[] }> = {
    'API change': { samples: [], errors: [] },
    'plain SQL': { samples: [], errors: [] },
  };
  let order: number[] = [];
  log(`tenants (${mode}): revocation on B, ${reps} changes over random tenants`);
  for (let i = 0; i < reps; i++) {
    if (!order.length) order = shuffle(tenants.map((_, ti) => ti)).filter((ti) => remaining[ti].length > 0);
    const ti = order.shift()!;
    const t = tenants[ti];
    const user = remaining[ti].splice(Math.floor(Math.random() * remaining[ti].length), 1)[0];
    const kindName = kinds[i % 2];
    let client: Client | undefined;
    const kind: Kind = {
      name: `${kindName} (tenant ${t.slug})`,
      refused: 401,
      prepare: async () => {
        const probe = (base: string) => call('POST', `${base}/api/v1/introspect`, { token: user.token }, user.token);
        if (kindName === 'API change') {
          let admin = adminTokens.get(ti);
          if (!admin) {
            admin = await login(A, t.adminEmail, TENANT_ADMIN_PASSWORD, t.sectorID);
            adminTokens.set(ti, admin);
          }
          const token = admin;
          return { probe, change: () => ok('DELETE', `${A}/api/v1/users/${user.sub}`, undefined, token) };
        }
        const sql = await storageClient(mainUrl, storages.get(t.tenantID)!, 'iam-bench-revoke');
        client = sql;
        return {
          probe,
          change: async () => {
            const { rowCount } = await sql.query('UPDATE sessions SET revoked_at = now() WHERE user_id = $1', [user.sub]);
            if (!rowCount) throw new Error(`no session of user ${user.sub} in tenant ${t.slug}`);
          },
        };
      },
    };
    try {
      results[kindName].samples.push({ tenant: t.slug, ...(await measure(kind, B, A)) });
    } catch (err) {
      results[kindName].errors.push(err instanceof Error ? err.message.split('\n')[0] : String(err));
    } finally {
      await client?.end().catch(() => undefined);
    }
  }

  const summary: Record<string, unknown> = { repetitions: reps };
  const rows: Row[] = [];
  for (const name of kinds) {
    const { samples, errors } = results[name];
    const n = samples.length + errors.length;
    if (!n) continue;
    const delays = summarize(samples);
    const { never } = delays;
    summary[name] = { samples, errors, ...delays };
    rows.push({
      metric: `[${mode}] revocation on B over random tenants: ${name}`,
      value: `${describe(delays, samples.length)}${errors.length ? `, ${errors.length} errors` : ''}`,
      baseline: name === 'API change' ? `${n}× DELETE /users/{sub} on A` : `${n}× UPDATE sessions in SQL`,
      ratio: '',
      goal: 'refused within 5 s, every time',
      pass: never === 0 && errors.length === 0,
    });
    if (never) {
      const notOnA = samples.filter((s) => s.afterAnswerMs === null && !s.refusedOnA).length;
      report.fail(`tenants (${mode}): revocation (${name}) — B still accepted the token 5 s after the change in ${never} of ${n}${notOnA ? ` (A too in ${notOnA}: the change did not take)` : ''}`);
    }
    if (errors.length) report.fail(`tenants (${mode}): revocation (${name}) — ${errors.length} of ${n} failed: ${errors[0]}`);
    log(`tenants (${mode}): revocation (${name}): p50 ${fmt(delays.p50Ms, 1)} ms, max ${fmt(delays.maxMs, 1)} ms, never ${never}, errors ${errors.length}`);
  }
  return { figures: summary, rows };
}
