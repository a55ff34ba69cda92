import { BenchContext } from '../lib/context';
import { processConnections, rssMiB } from '../lib/database';
import { login, platformLogin, provisionTenant, TENANT_ADMIN_PASSWORD, TenantFixture } from '../lib/fixture';
import { figures, LoadFigures, rotating, runLoad, sleep } from '../lib/load';
import { fmt, log } from '../lib/report';
import { deployment, startService } from '../lib/service';
import { loginSeconds } from './login';

const PARALLEL = 4;

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

interface Snapshot {
  rssMiB: number | null;
  /** The instance's DB connections (from /proc) and the server's view (pg_stat_activity on the deployment's databases). */
  processConnections: number | null;
  serverConnections: number;
}

/** The instance's pool settings for `headroom` free server connections, and the bound they set on its connections. */
function poolLimits(headroom: number): { env: Record<string, string>; bound: number } {
  const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  const main = env('DB_POOL_MAX', 10);
  const perTenant = env('TENANT_POOL_MAX', 2);
  const listeners = env('AUTH_CACHE_DATABASES', 10);
  const pools = env('TENANT_CONNECTIONS_MAX', Math.max(2, Math.floor((headroom - 10 - main - listeners) / perTenant)));
  return {
    env: { DB_POOL_MAX: String(main), TENANT_POOL_MAX: String(perTenant), AUTH_CACHE_DATABASES: String(listeners), TENANT_CONNECTIONS_MAX: String(pools) },
    bound: main + pools * perTenant + listeners,
  };
}

/**
 * Scenario 6: BENCH_TENANTS tenants provisioned (pooled mode, PARALLEL at a time) on
 * one fresh instance and database, then introspection and logins spread over a
 * sample of them (one token / one admin per tenant, rotated across requests), with
 * the instance's RSS and DB connections when fresh, before the loads, during (max
 * of samples every 500 ms) and 3 s after.
 */
export async function tenantsScenario(ctx: BenchContext): Promise<void> {
  const { config, dbs, report } = ctx;
  const db = await dbs.create();
  const dep = deployment(ctx.build, db, config.bcryptCost);
  // Bounded pools sized to what the server accepts (a stock PostgreSQL allows 100 connections):
  // main pool + open tenant pools × their size + auth listeners, with a margin for the benchmark's own.
  const limits = poolLimits(await dbs.headroom());
  const instance = await startService(dep, ctx.runDir, 'service-tenants', { TENANCY_MODE: 'pooled', ...limits.env });
  try {
    const snapshot = async (): Promise<Snapshot> => ({
      rssMiB: rssMiB(instance.pid),
      processConnections: processConnections(instance.pid, dbs.port),
      serverConnections: (await dbs.connections(db.name)).total,
    });
    const fresh = await snapshot();
    const platform = await platformLogin(instance.base);
    log(`tenants: provisioning ${config.tenants} tenants, ${PARALLEL} at a time`);
    const t0 = performance.now();
    let done = 0;
    const tenants = await inParallel(Array.from({ length: config.tenants }), PARALLEL, async () => {
      const t = await provisionTenant(instance.base, platform, 'scale', false);
      if (++done % 100 === 0) log(`tenants: ${done} provisioned`);
      return t;
    });
    const provisionSeconds = (performance.now() - t0) / 1000;
    log(`tenants: ${config.tenants} provisioned in ${fmt(provisionSeconds, 1)} s`);

    const step = tenants.length / config.tenantSample;
    const sample: TenantFixture[] = Array.from({ length: config.tenantSample }, (_, i) => tenants[Math.floor(i * step)]);
    log(`tenants: signing in the admins of ${sample.length} tenants`);
    const tokens = await inParallel(sample, PARALLEL, (t) => login(instance.base, t.adminEmail, TENANT_ADMIN_PASSWORD, t.sectorID));

    const during = async <T>(work: Promise<T>): Promise<{ result: T; max: Snapshot; samples: Snapshot[] }> => {
      const samples: Snapshot[] = [];
      let running = true;
      const sampler = (async () => {
        while (running) {
          samples.push(await snapshot());
          await sleep(500);
        }
      })();
      const result = await work;
      running = false;
      await sampler;
      const max = (k: keyof Snapshot) => Math.max(...samples.map((s) => s[k] ?? 0));
      return { result, samples, max: { rssMiB: max('rssMiB'), processConnections: max('processConnections'), serverConnections: max('serverConnections') } };
    };

    const before = await snapshot();
    log(`tenants: introspection over ${tokens.length} tenants`);
    const intro = await during(
      runLoad({
        url: `${instance.base}/api/v1/introspect`,
        method: 'POST',
        connections: config.connections,
        duration: config.seconds,
        headers: { 'content-type': 'application/json' },
        requests: rotating(tokens, (token) => ({ headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ token }) })),
      }),
    );
    const connections = Math.max(2, config.cores * 2);
    log(`tenants: logins over ${sample.length} tenants`);
    const logins = await during(
      runLoad({
        url: `${instance.base}/api/v1/login/password`,
        method: 'POST',
        connections,
        duration: loginSeconds(ctx),
        headers: { 'content-type': 'application/json' },
        requests: rotating(sample, (t) => ({ body: JSON.stringify({ username: t.adminEmail, password: TENANT_ADMIN_PASSWORD, sectorID: t.sectorID }) })),
      }),
    );
    await sleep(3000);
    const after = await snapshot();

    const introspection: LoadFigures = figures(intro.result);
    const signIns: LoadFigures = figures(logins.result);
    const duringMax: Snapshot = {
      rssMiB: Math.max(intro.max.rssMiB ?? 0, logins.max.rssMiB ?? 0),
      processConnections: Math.max(intro.max.processConnections ?? 0, logins.max.processConnections ?? 0),
      serverConnections: Math.max(intro.max.serverConnections, logins.max.serverConnections),
    };
    const bound = limits.bound;
    report.set('tenants', {
      tenants: config.tenants,
      provisionParallel: PARALLEL,
      provisionSeconds,
      sampledTenants: sample.length,
      introspection,
      login: { connections, ...signIns },
      fresh,
      before,
      duringMax,
      after,
      connectionBound: bound,
      samples: { introspection: intro.samples, login: logins.samples },
    });
    report.row({ metric: `provision ${config.tenants} tenants (${PARALLEL} parallel)`, value: `${fmt(provisionSeconds, 1)} s (${fmt(config.tenants / provisionSeconds, 1)} tenants/s)`, baseline: '', ratio: '', goal: '', pass: null });
    report.row({ metric: `introspection over ${sample.length} of ${config.tenants} tenants`, value: `${fmt(introspection.rps)} req/s, p99 ${introspection.p99} ms, errors ${introspection.errors}`, baseline: '', ratio: '', goal: 'errors 0', pass: introspection.errors === 0 });
    report.row({ metric: `login over ${sample.length} of ${config.tenants} tenants`, value: `${fmt(signIns.rps, 1)}/s, p99 ${signIns.p99} ms, errors ${signIns.errors}`, baseline: '', ratio: '', goal: 'errors 0', pass: signIns.errors === 0 });
    report.row({ metric: 'service RSS fresh / before loads / max during / after', value: `${fmt(fresh.rssMiB)} / ${fmt(before.rssMiB)} / ${fmt(duringMax.rssMiB)} / ${fmt(after.rssMiB)} MiB`, baseline: '', ratio: '', goal: 'flat', pass: null });
    report.row({
      metric: 'DB connections fresh / before loads / max during / after',
      value: `${fmt(fresh.processConnections)} / ${fmt(before.processConnections)} / ${fmt(duringMax.processConnections)} / ${fmt(after.processConnections)} (server ${fresh.serverConnections} / ${before.serverConnections} / ${duringMax.serverConnections} / ${after.serverConnections})`,
      baseline: `pool bound ${bound}`,
      ratio: '',
      goal: `≤ ${bound}`,
      pass: duringMax.serverConnections <= bound,
    });
    if (introspection.errors || signIns.errors) report.fail(`tenants: ${introspection.errors} failed introspections, ${signIns.errors} failed logins`);
    log(
      `tenants: introspection ${fmt(introspection.rps)} req/s p99 ${introspection.p99} ms errors ${introspection.errors}; logins ${fmt(signIns.rps, 1)}/s errors ${signIns.errors}; ` +
        `RSS ${fmt(before.rssMiB)}/${fmt(duringMax.rssMiB)}/${fmt(after.rssMiB)} MiB; connections ${fmt(before.processConnections)}/${fmt(duringMax.processConnections)}/${fmt(after.processConnections)} (bound ${bound})`,
    );
  } finally {
    await instance.stop();
  }
}
