import { BenchContext, Target } from '../lib/context';
import { figures, LoadFigures, runLoad } from '../lib/load';
import { fmt, log, ratioOf, times } from '../lib/report';
import { startService, supportsAdapterSwitch } from '../lib/service';

async function readLoad(ctx: BenchContext, url: string, token: string, warmUp: boolean): Promise<LoadFigures> {
  const opts = { url, method: 'GET' as const, connections: ctx.config.connections, headers: { authorization: `Bearer ${token}` } };
  if (warmUp) await runLoad({ ...opts, duration: 2 });
  return figures(await runLoad({ ...opts, duration: ctx.config.seconds }));
}

/**
 * The round with the median throughput (its p99 with it), and the errors of all
 * rounds: one disturbance on the shared machine moves one round, not the figure.
 */
export function medianRound(rounds: LoadFigures[]): LoadFigures {
  const sorted = [...rounds].sort((a, b) => a.rps - b.rps);
  return { ...sorted[Math.floor((sorted.length - 1) / 2)], errors: rounds.reduce((n, r) => n + r.errors, 0) };
}

/** The authenticated reads measured: a user's profile (operation 7) and the tenant's sector list (operation 3), as the tenant's admin. */
function reads(t: Target, base = t.instance.base): Array<{ name: string; url: string; token: string }> {
  return [
    { name: 'GET /api/v1/users/{sub}', url: `${base}/api/v1/users/${t.member.sub}`, token: t.tenant.adminToken },
    { name: 'GET /api/v1/sectors', url: `${base}/api/v1/sectors`, token: t.tenant.adminToken },
  ];
}

/**
 * Scenario 2: authenticated reads at BENCH_CONNECTIONS on the service (Express, and
 * Fastify on an instance of the same deployment), beside the earlier build
 * (BENCH_BEFORE) when given. BENCH_READ_ROUNDS rounds (3): in each, every target
 * is loaded in turn, so a disturbance of the shared machine falls on one round of
 * one target; each target's median round is its figure, and the rounds' figures
 * are in the JSON.
 */
export async function readsScenario(ctx: BenchContext, main: Target, before?: Target): Promise<void> {
  const out: Record<string, { service: LoadFigures; fastify: LoadFigures | null; before: LoadFigures | null; rounds: { express: number[]; fastify: number[]; before: number[] } }> = {};
  const fastifyInstance = supportsAdapterSwitch(ctx.build) ? await startService(main.deployment, ctx.runDir, 'service-fastify-reads', { HTTP_ADAPTER: 'fastify' }) : undefined;
  try {
    const now = reads(main);
    const onFastify = fastifyInstance ? reads(main, fastifyInstance.base) : [];
    const then = before ? reads(before) : [];
    for (let i = 0; i < now.length; i++) {
      log(`reads: ${now[i].name} (${ctx.config.readRounds} rounds, the targets in turn)`);
      const targets = [now[i], fastifyInstance ? onFastify[i] : undefined, before ? then[i] : undefined];
      const rounds: LoadFigures[][] = targets.map(() => []);
      for (let round = 0; round < ctx.config.readRounds; round++) {
        for (const [t, target] of targets.entries()) if (target) rounds[t].push(await readLoad(ctx, target.url, target.token, round === 0));
      }
      const [service, fastify, prior] = rounds.map((r) => (r.length ? medianRound(r) : null)) as [LoadFigures, LoadFigures | null, LoadFigures | null];
      const rps = (r: LoadFigures[]) => r.map((f) => f.rps);
      out[now[i].name] = { service, fastify, before: prior, rounds: { express: rps(rounds[0]), fastify: rps(rounds[1]), before: rps(rounds[2]) } };
      for (const [adapter, figuresOf] of [['express', service], ['fastify', fastify]] as const) {
        if (!figuresOf) continue;
        const r = ratioOf(figuresOf.rps, prior?.rps);
        ctx.report.row({
          metric: `${now[i].name} ${ctx.config.connections} conn req/s (${adapter})`,
          value: `${fmt(figuresOf.rps)} (p99 ${figuresOf.p99} ms, errors ${figuresOf.errors})`,
          baseline: prior ? `before ${fmt(prior.rps)} (p99 ${prior.p99} ms)` : 'n/a (no BENCH_BEFORE)',
          ratio: times(figuresOf.rps, prior?.rps),
          goal: '≥ 3× before',
          pass: r === null ? null : r >= 3,
        });
        if (figuresOf.errors) ctx.report.fail(`${now[i].name} (${adapter}): ${figuresOf.errors} failed requests`);
      }
      log(
        `reads: ${now[i].name} express ${fmt(service.rps)} req/s p99 ${service.p99} ms` +
          `${fastify ? `; fastify ${fmt(fastify.rps)} req/s p99 ${fastify.p99} ms` : ''}${prior ? `; before ${fmt(prior.rps)} req/s p99 ${prior.p99} ms` : ''}` +
          ` (medians of rounds: ${Object.entries(out[now[i].name].rounds)
            .filter(([, each]) => each.length > 0)
            .map(([target, each]) => `${target} ${each.map((v) => fmt(Math.round(v))).join(' / ')}`)
            .join('; ')})`,
      );
    }
  } finally {
    await fastifyInstance?.stop();
  }
  ctx.report.set('reads', { connections: ctx.config.connections, ...out });
}
