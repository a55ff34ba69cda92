import * as bcrypt from 'bcrypt';
import { BenchContext, introspectionRequest, Target } from '../lib/context';
import { TENANT_ADMIN_PASSWORD } from '../lib/fixture';
import { figures, LoadFigures, runLoad } from '../lib/load';
import { fmt, log, ratioOf, times } from '../lib/report';
import { medianRound } from './reads';

/** bcrypt verifications per second at `cost` on this process's libuv pool (as many in flight as the pool has threads). */
export async function bcryptPerSecond(cost: number, seconds: number): Promise<number> {
  const hash = await bcrypt.hash('benchmark-password', cost);
  const parallel = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  let done = 0;
  const started = Date.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (Date.now() < end) {
        await bcrypt.compare('benchmark-password', hash);
        done++;
      }
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

/** Raw bcrypt right before and right after a login load: the bound is their mean, so the machine's drift meanwhile shows and weighs half. */
export interface BcryptBound {
  before: number;
  after: number;
  mean: number;
}

/** Runs `load` between two raw bcrypt measurements of `seconds` each at `cost` (see BcryptBound). */
async function besideBcrypt<T>(cost: number, seconds: number, load: () => Promise<T>): Promise<{ result: T; bound: BcryptBound }> {
  const before = await bcryptPerSecond(cost, seconds);
  const result = await load();
  return { result, bound: boundOf(before, await bcryptPerSecond(cost, seconds)) };
}

export function boundOf(before: number, after: number): BcryptBound {
  return { before, after, mean: (before + after) / 2 };
}

/** How a bound reads in a row: the mean, then the two measurements around the load. */
export function boundText(cost: number, bound: BcryptBound): string {
  return `bcrypt cost ${cost} ${fmt(bound.mean, 1)}/s (${fmt(bound.before, 1)} before, ${fmt(bound.after, 1)} after)`;
}

export function loginConnections(ctx: BenchContext): number {
  return Math.max(2, ctx.config.cores * 2);
}

/** Login loads last at least 5 s: a login takes hundreds of milliseconds under load, so shorter runs count too few of them. */
export function loginSeconds(ctx: BenchContext): number {
  return Math.max(5, ctx.config.seconds);
}

/** A load of password logins of the target's tenant admin. */
export function loginRequest(t: Pick<Target, 'instance' | 'tenant'>, connections: number, seconds: number) {
  return {
    url: `${t.instance.base}/api/v1/login/password`,
    connections,
    duration: seconds,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: t.tenant.adminEmail, password: TENANT_ADMIN_PASSWORD, sectorID: t.tenant.sectorID }),
  };
}

/** Scenario 3a: password logins beside raw bcrypt at the same cost (and beside the earlier build's, with BENCH_BEFORE). */
export async function loginScenario(ctx: BenchContext, main: Target, before?: Target): Promise<void> {
  const { config, report } = ctx;
  const connections = loginConnections(ctx);
  const { result, bound } = await besideBcrypt(config.bcryptCost, Math.min(loginSeconds(ctx), 5), async () => {
    if (!before) {
      log(`login: ${connections} connections`);
      return { login: figures(await runLoad(loginRequest(main, connections, loginSeconds(ctx)))), prior: undefined };
    }
    // Beside the earlier build: BENCH_READ_ROUNDS rounds, the two in turn, each one's median round (as the reads).
    log(`login: ${connections} connections, ${config.readRounds} rounds beside the earlier build`);
    const rounds: [LoadFigures[], LoadFigures[]] = [[], []];
    for (let round = 0; round < config.readRounds; round++) {
      rounds[0].push(figures(await runLoad(loginRequest(main, connections, loginSeconds(ctx)))));
      rounds[1].push(figures(await runLoad(loginRequest(before, connections, loginSeconds(ctx)))));
    }
    return { login: medianRound(rounds[0]), prior: medianRound(rounds[1]) };
  });
  const { login, prior } = result;
  const raw = bound.mean;
  report.set('login', { connections, seconds: loginSeconds(ctx), bcryptCost: config.bcryptCost, service: login, before: prior ?? null, bcryptPerSecond: raw, bcrypt: bound, libuvPool: Number(process.env.UV_THREADPOOL_SIZE ?? 4) });
  const r = ratioOf(login.rps, raw);
  report.row({ metric: `password login ${connections} conn logins/s`, value: `${fmt(login.rps, 1)} (p99 ${login.p99} ms, errors ${login.errors})`, baseline: boundText(config.bcryptCost, bound), ratio: times(login.rps, raw), goal: '≥ 0.95× bcrypt', pass: r !== null && r >= 0.95 });
  if (prior) {
    const rb = ratioOf(login.rps, prior.rps);
    report.row({ metric: `password login ${connections} conn × before`, value: fmt(login.rps, 1), baseline: `before ${fmt(prior.rps, 1)} (p99 ${prior.p99} ms)`, ratio: times(login.rps, prior.rps), goal: '≥ 0.95× before', pass: rb !== null && rb >= 0.95 });
  }
  if (login.errors) report.fail(`login: ${login.errors} failed requests`);
  log(`login: ${fmt(login.rps, 1)} logins/s p99 ${login.p99} ms errors ${login.errors}; bcrypt ${fmt(raw, 1)}/s${prior ? `; before ${fmt(prior.rps, 1)}/s` : ''}`);
}

/** Scenario 3b: a login storm saturating the CPU while introspection runs at 10 connections. */
export async function mixedScenario(ctx: BenchContext, main: Target): Promise<void> {
  const { report } = ctx;
  const connections = loginConnections(ctx);
  const introspectConnections = 10;
  log(`mixed: ${connections} login connections + introspection at ${introspectConnections} connections`);
  const [login, introspection]: LoadFigures[] = (
    await Promise.all([
      runLoad(loginRequest(main, connections, loginSeconds(ctx))),
      runLoad({ ...introspectionRequest(main.instance.base, main.tenant.adminToken), connections: introspectConnections, duration: loginSeconds(ctx) }),
    ])
  ).map(figures);
  report.set('mixed', { seconds: loginSeconds(ctx), loginConnections: connections, introspectionConnections: introspectConnections, login, introspection });
  report.row({ metric: `introspection p99 during login storm (${introspectConnections} conn)`, value: `${introspection.p99} ms (${fmt(introspection.rps)} req/s, errors ${introspection.errors})`, baseline: '', ratio: '', goal: '< 50 ms', pass: introspection.p99 < 50 });
  report.row({ metric: 'login throughput during mixed load', value: `${fmt(login.rps, 1)} logins/s (p99 ${login.p99} ms)`, baseline: '', ratio: '', goal: '', pass: null });
  if (login.errors + introspection.errors) report.fail(`mixed: ${login.errors} failed logins, ${introspection.errors} failed introspections`);
  log(`mixed: introspection p99 ${introspection.p99} ms (${fmt(introspection.rps)} req/s); logins ${fmt(login.rps, 1)}/s`);
}
