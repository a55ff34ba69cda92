import { BenchContext, introspectionRequest, Target } from '../lib/context';
import { ConnectionCounter } from '../lib/process-connections';
import { LoadFigures, round, sleep, splitLoad } from '../lib/load';
import { fmt, log, times } from '../lib/report';
import { ServiceInstance } from '../lib/service';

interface Phase {
  instances: number;
  total: LoadFigures;
  each: LoadFigures[];
  /** DB connections each instance held (max sampled during the load), from /proc. */
  connectionsPerInstance: Array<number | null>;
  /** pg_stat_activity on the deployment's databases, by application name (max total sampled during the load). */
  serverConnections: { total: number; byApplication: Record<string, number> };
  /** Commits during the load and the 11 s after it, minus the idle instances' own background commits over that window. */
  transactions: number;
  transactionsPerIntrospection: number;
  /** The same before subtracting the background rate, and the window (s) it covers. */
  grossTransactions: number;
  windowSeconds: number;
}

/** PostgreSQL publishes an idle backend's pending statistics within 10 s (at most once a second while busy): wait that long before reading counts. */
const STATS_LAG_MS = 11_000;

/**
 * Scenario 4: introspection on one instance, then split round robin over two
 * instances of one database (one autocannon per instance, half the connections
 * each, summed). The database cost: connections per instance and committed
 * transactions (pg_stat_database.xact_commit of the deployment's databases) per
 * introspection served, net of the instances' background commits (their rate
 * measured first over an idle window of the same length).
 */
export async function scaleOutScenario(ctx: BenchContext, a: Target, b: ServiceInstance): Promise<void> {
  const { config, dbs, report } = ctx;
  const prefix = a.deployment.databaseName;
  const token = a.tenant.adminToken;
  const instances = [a.instance, b];
  // warm both (caches, pools) first
  await splitLoad(instances.map((i) => ({ ...introspectionRequest(i.base, token), connections: Math.ceil(config.connections / 2), duration: 2 })));

  log('scale-out: background commit rate of the idle instances');
  await sleep(STATS_LAG_MS);
  const idleFrom = await dbs.commits(prefix);
  const idleStart = performance.now();
  await sleep(STATS_LAG_MS);
  let start = await dbs.commits(prefix);
  const backgroundPerSecond = (start - idleFrom) / ((performance.now() - idleStart) / 1000);

  const phases: Phase[] = [];
  const counter = new ConnectionCounter();
  for (const n of [1, 2]) {
    log(`scale-out: ${n} instance(s)`);
    const used = instances.slice(0, n);
    const t0 = performance.now();
    let maxServer = { total: 0, byApplication: {} as Record<string, number> };
    const maxPer: Array<number | null> = used.map(() => null);
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const s = await dbs.connections(prefix);
        if (s.total > maxServer.total) maxServer = s;
        const counts = await Promise.all(used.map((inst) => counter.count(inst.pid, dbs.port)));
        counts.forEach((c, i) => {
          if (c !== null) maxPer[i] = Math.max(maxPer[i] ?? 0, c);
        });
        await sleep(500);
      }
    })();
    const { total, each } = await splitLoad(used.map((i) => ({ ...introspectionRequest(i.base, token), connections: Math.ceil(config.connections / n), duration: config.seconds })));
    sampling = false;
    await sampler;
    await sleep(STATS_LAG_MS);
    const end = await dbs.commits(prefix);
    const windowSeconds = (performance.now() - t0) / 1000;
    const grossTransactions = end - start;
    const transactions = Math.max(0, Math.round(grossTransactions - backgroundPerSecond * windowSeconds));
    start = end;
    phases.push({ instances: n, total, each, connectionsPerInstance: maxPer, serverConnections: maxServer, transactions, transactionsPerIntrospection: round(transactions / Math.max(1, total.requests), 3), grossTransactions, windowSeconds: round(windowSeconds, 1) });
  }
  await counter.close();
  report.set('scaleOut', { connections: config.connections, backgroundCommitsPerSecond: round(backgroundPerSecond, 2), phases });
  const [one, two] = phases;
  report.row({ metric: 'introspection, 2 instances vs 1 (req/s)', value: `${fmt(two.total.rps)} (p99 ${two.total.p99} ms)`, baseline: `1 instance ${fmt(one.total.rps)} (p99 ${one.total.p99} ms)`, ratio: times(two.total.rps, one.total.rps), goal: '', pass: null });
  report.row({ metric: 'DB connections per instance (max, 1 → 2 instances)', value: two.connectionsPerInstance.map((c) => fmt(c)).join(' + '), baseline: `1 instance ${fmt(one.connectionsPerInstance[0])}`, ratio: '', goal: '', pass: null });
  report.row({ metric: 'DB transactions per introspection', value: `${fmt(two.transactionsPerIntrospection, 3)} (2 instances)`, baseline: `1 instance ${fmt(one.transactionsPerIntrospection, 3)}`, ratio: '', goal: '', pass: null });
  for (const p of phases) {
    if (p.total.errors) report.fail(`scale-out (${p.instances} instances): ${p.total.errors} failed requests`);
    log(
      `scale-out: ${p.instances} instance(s) ${fmt(p.total.rps)} req/s p99 ${p.total.p99} ms errors ${p.total.errors}; ` +
        `DB connections per instance ${p.connectionsPerInstance.map((c) => fmt(c)).join('+')}, server ${p.serverConnections.total} ${JSON.stringify(p.serverConnections.byApplication)}; ` +
        `${fmt(p.transactionsPerIntrospection, 3)} transactions per introspection`,
    );
  }
}
