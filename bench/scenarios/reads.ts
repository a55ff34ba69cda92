import { BenchContext, Target } from '../lib/context';
import { figures, LoadFigures, runLoad } from '../lib/load';
import { fmt, log, ratioOf, times } from '../lib/report';

async function readLoad(ctx: BenchContext, url: string, token: string): Promise<LoadFigures> {
  const opts = { url, method: 'GET' as const, connections: ctx.config.connections, headers: { authorization: `Bearer ${token}` } };
  await runLoad({ ...opts, duration: 2 });
  return figures(await runLoad({ ...opts, duration: ctx.config.seconds }));
}

/** The authenticated reads measured: a user's profile (operation 7) and the tenant's sector list (operation 3), as the tenant's admin. */
function reads(t: Target): Array<{ name: string; url: string; token: string }> {
  return [
    { name: 'GET /api/v1/users/{sub}', url: `${t.instance.base}/api/v1/users/${t.member.sub}`, token: t.tenant.adminToken },
    { name: 'GET /api/v1/sectors', url: `${t.instance.base}/api/v1/sectors`, token: t.tenant.adminToken },
  ];
}

/** Scenario 2: authenticated reads at BENCH_CONNECTIONS, beside the earlier build (BENCH_BEFORE) when given. */
export async function readsScenario(ctx: BenchContext, main: Target, before?: Target): Promise<void> {
  const out: Record<string, { service: LoadFigures; before: LoadFigures | null }> = {};
  const now = reads(main);
  const then = before ? reads(before) : [];
  for (let i = 0; i < now.length; i++) {
    log(`reads: ${now[i].name}`);
    const service = await readLoad(ctx, now[i].url, now[i].token);
    const prior = before ? await readLoad(ctx, then[i].url, then[i].token) : null;
    out[now[i].name] = { service, before: prior };
    const r = ratioOf(service.rps, prior?.rps);
    ctx.report.row({
      metric: `${now[i].name} ${ctx.config.connections} conn req/s`,
      value: `${fmt(service.rps)} (p99 ${service.p99} ms, errors ${service.errors})`,
      baseline: prior ? `before ${fmt(prior.rps)} (p99 ${prior.p99} ms)` : 'n/a (no BENCH_BEFORE)',
      ratio: times(service.rps, prior?.rps),
      goal: '≥ 3× before',
      pass: r === null ? null : r >= 3,
    });
    if (service.errors) ctx.report.fail(`${now[i].name}: ${service.errors} failed requests`);
    log(`reads: ${now[i].name} ${fmt(service.rps)} req/s p99 ${service.p99} ms errors ${service.errors}${prior ? `; before ${fmt(prior.rps)} req/s p99 ${prior.p99} ms` : ''}`);
  }
  ctx.report.set('reads', { connections: ctx.config.connections, ...out });
}
