import { join } from 'node:path';
import { BenchContext } from '../lib/context';
import { platformLogin, provisionTenant } from '../lib/fixture';
import { figures, LoadFigures, runLoad } from '../lib/load';
import { fmt, log, ratioOf } from '../lib/report';
import { deployment, ServiceInstance, startService } from '../lib/service';
import { loginConnections, loginRequest } from './login';
import { medianRound } from './reads';

/** The password cost of this scenario's tenant: low, so that the service's own path, not bcrypt, is what a login costs. */
const BCRYPT_COST = 4;
/** Seconds per load: the loads are cheap logins, about a thousand in a few seconds. */
const SECONDS = 4;
/** Rounds at least: each gives one ratio of two loads taken back to back, and their median is the figure. */
const MIN_ROUNDS = 5;

/**
 * The sign-in cost of an empty sign-in policy (docs/extending.md): password logins
 * on two instances of one deployment, one with no extension module and one with
 * an extension whose policy allows everything (bench/fixtures/empty-policy.cjs).
 * After a warm-up of each, rounds (BENCH_READ_ROUNDS, at least 5) of one load on
 * each, back to back and in turn first; the figure is the median of the rounds'
 * ratios (two loads taken together share the machine's drift), beside each side's
 * median round. The tenant's password is hashed at cost 4, so that the hook's cost
 * is not lost in bcrypt's. Goal: within 2 % of none.
 */
export async function extensionsScenario(ctx: BenchContext): Promise<void> {
  const { config, report } = ctx;
  const dep = deployment(ctx.build, await ctx.dbs.create(), BCRYPT_COST);
  const instances: ServiceInstance[] = [];
  try {
    log('extensions: starting an instance without extension modules and one with an empty sign-in policy');
    const none = await startService(dep, ctx.runDir, 'extensions-none');
    instances.push(none);
    const hooked = await startService(dep, ctx.runDir, 'extensions-empty-policy', { EXTENSION_MODULES: join(config.root, 'bench', 'fixtures', 'empty-policy.cjs') });
    instances.push(hooked);
    const tenant = await provisionTenant(none.base, await platformLogin(none.base), 'bench-ext');
    const connections = loginConnections(ctx);
    const load = (instance: ServiceInstance, seconds = SECONDS) => runLoad(loginRequest({ instance, tenant }, connections, seconds)).then(figures);
    const roundCount = Math.max(MIN_ROUNDS, config.readRounds);
    log(`extensions: ${connections} connections, a warm-up, then ${roundCount} rounds of ${SECONDS} s each side`);
    await load(none, 2);
    await load(hooked, 2);
    const rounds: [LoadFigures[], LoadFigures[]] = [[], []];
    for (let round = 0; round < roundCount; round++) {
      if (round % 2 === 0) {
        rounds[0].push(await load(none));
        rounds[1].push(await load(hooked));
      } else {
        rounds[1].push(await load(hooked));
        rounds[0].push(await load(none));
      }
    }
    const [without, withPolicy] = [medianRound(rounds[0]), medianRound(rounds[1])];
    const ratios = rounds[1].map((f, i) => ratioOf(f.rps, rounds[0][i].rps) ?? 0).sort((x, y) => x - y);
    const r = ratios[Math.floor((ratios.length - 1) / 2)];
    report.set('extensions', {
      connections,
      seconds: SECONDS,
      bcryptCost: BCRYPT_COST,
      none: without,
      emptyPolicy: withPolicy,
      rounds: { none: rounds[0].map((f) => f.rps), emptyPolicy: rounds[1].map((f) => f.rps) },
      medianRatio: r,
    });
    report.row({
      metric: `password login (cost ${BCRYPT_COST}) with an empty sign-in policy, ${connections} conn`,
      value: `${fmt(withPolicy.rps, 1)}/s (p99 ${withPolicy.p99} ms)`,
      baseline: `none ${fmt(without.rps, 1)}/s (p99 ${without.p99} ms)`,
      ratio: `${fmt(r, 3)}× (median of ${roundCount} rounds)`,
      goal: '≥ 0.98× none',
      pass: r >= 0.98,
    });
    if (without.errors + withPolicy.errors) report.fail(`extensions: ${without.errors + withPolicy.errors} failed logins`);
    log(`extensions: ${fmt(withPolicy.rps, 1)} logins/s with the empty policy, ${fmt(without.rps, 1)}/s without; median ratio ${fmt(r, 3)}`);
  } finally {
    for (const instance of instances) await instance.stop();
  }
}
