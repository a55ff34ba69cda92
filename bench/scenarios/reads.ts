import { BenchContext, Target } from '../lib/context';
import { figures, LoadFigures, runLoad } from '../lib/load';
import { fmt, log, ratioOf, times } from '../lib/report';
import { startService, supportsAdapterSwitch } from '../lib/service';

async function readLoad(ctx: BenchContext, url: string, token: string): Promise<LoadFigures> {
  const opts = { url, method: 'GET' as const, connections: ctx.config.connections, headers: { authorization: `Bearer ${token}` } };
  await runLoad({ ...opts, duration: 2 });
  return figures(await runLoad({ ...opts, duration: ctx.config.seconds }));
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
 * (BENCH_BEFORE) when given.
 */
export async function readsScenario(ctx: BenchContext, main: Target, before?: Target): Promise<void> {
  const out: Record<string, { service: LoadFigures; fastify: LoadFigures | null; before: LoadFigures | null }> = {};
  const fastifyInstance = supportsAdapterSwitch(ctx.build) ? await startService(main.deployment, ctx.runDir, 'service-fastify-reads', { HTTP_ADAPTER: 'fastify' }) : undefined;
  try {
    const now = reads(main);
    const onFastify = fastifyInstance ? reads(main, fastifyInstance.base) : [];
    const then = before ? reads(before) : [];
    for (let i = 0; i < now.length; i++) {
      log(`reads: ${now[i].name}`);
      const service = await readLoad(ctx, now[i].url, now[i].token);
      const fastify = fastifyInstance ? await readLoad(ctx, onFastify[i].url, onFastify[i].token) : null;
      const prior = before ? await readLoad(ctx, then[i].url, then[i].token) : null;
      out[now[i].name] = { service, fastify, before: prior };
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
          `${fastify ? `; fastify ${fmt(fastify.rps)} req/s p99 ${fastify.p99} ms` : ''}${prior ? `; before ${fmt(prior.rps)} req/s p99 ${prior.p99} ms` : ''}`,
      );
    }
  } finally {
    await fastifyInstance?.stop();
  }
  ctx.report.set('reads', { connections: ctx.config.connections, ...out });
}
