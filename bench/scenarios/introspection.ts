import { oidcBasicAuth, oidcToken, startBareServer, startOidcProvider } from '../lib/baselines';
import { BenchContext, introspectionRequest, Target } from '../lib/context';
import { figures, LoadFigures, runLoad } from '../lib/load';
import { fmt, log, ratioOf, times } from '../lib/report';
import { startService, supportsAdapterSwitch } from '../lib/service';

/** Introspection at BENCH_CONNECTIONS after a 2 s warm-up. */
async function introspectionLoad(ctx: BenchContext, base: string, token: string): Promise<LoadFigures> {
  const opts = { ...introspectionRequest(base, token), connections: ctx.config.connections };
  await runLoad({ ...opts, duration: 2 });
  return figures(await runLoad({ ...opts, duration: ctx.config.seconds }));
}

const show = (f: LoadFigures | null) => (f ? `${fmt(f.rps)} req/s, p50 ${f.p50} ms, p99 ${f.p99} ms, errors ${f.errors}` : 'n/a');

/**
 * Scenario 1: POST /api/v1/introspect on the service (Express, and Fastify when the
 * build has the HTTP_ADAPTER switch) beside a bare node:http server, an oidc-provider
 * authorization server's RFC 7662 introspection and, with BENCH_BEFORE, the earlier build.
 */
export async function introspectionScenario(ctx: BenchContext, main: Target, before?: Target): Promise<void> {
  const { config, report } = ctx;
  log('introspection: service (express)');
  const express = await introspectionLoad(ctx, main.instance.base, main.tenant.adminToken);

  let fastify: LoadFigures | null = null;
  let fastifyNote = '';
  if (supportsAdapterSwitch(ctx.build)) {
    log('introspection: service (fastify)');
    try {
      const instance = await startService(main.deployment, ctx.runDir, 'service-fastify', { HTTP_ADAPTER: 'fastify' });
      try {
        fastify = await introspectionLoad(ctx, instance.base, main.tenant.adminToken);
      } finally {
        await instance.stop();
      }
    } catch (err) {
      fastifyNote = `failed: ${(err as Error).message.split('\n')[0]}`;
      log(`introspection (fastify) n/a — ${fastifyNote}`);
    }
  } else fastifyNote = 'this build has no HTTP_ADAPTER switch';

  log('introspection: bare node:http');
  const bareServer = await startBareServer(ctx.runDir, config.root);
  let bare: LoadFigures;
  try {
    bare = await introspectionLoad(ctx, bareServer.url, 'x');
  } finally {
    await bareServer.stop();
  }

  log('introspection: oidc-provider');
  const op = await startOidcProvider(ctx.runDir, config.root);
  let oidc: LoadFigures;
  try {
    const token = await oidcToken(op.url);
    const opts = {
      url: `${op.url}/token/introspection`,
      method: 'POST' as const,
      connections: config.connections,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: oidcBasicAuth() },
      body: `token=${encodeURIComponent(token)}`,
    };
    // An answer that is not {"active":true,…} would measure the wrong thing.
    const check = await fetch(opts.url, { method: 'POST', headers: opts.headers, body: opts.body });
    const checked = (await check.json()) as { active?: boolean };
    if (!checked.active) throw new Error(`oidc-provider introspection answered ${JSON.stringify(checked)}`);
    await runLoad({ ...opts, duration: 2 });
    oidc = figures(await runLoad({ ...opts, duration: config.seconds }));
  } finally {
    await op.stop();
  }

  let prior: LoadFigures | null = null;
  if (before) {
    log('introspection: before');
    prior = await introspectionLoad(ctx, before.instance.base, before.tenant.adminToken);
  }

  report.set('introspection', { connections: config.connections, express, fastify, fastifyNote: fastifyNote || undefined, bareNodeHttp: bare, oidcProvider: oidc, before: prior });
  for (const [name, f] of [
    ['express', express],
    ['fastify', fastify],
  ] as const) {
    const label = `introspection ${config.connections} conn (${name})`;
    report.row({ metric: `${label} req/s`, value: f ? fmt(f.rps) : 'n/a', baseline: `oidc-provider ${fmt(oidc.rps)}`, ratio: times(f?.rps, oidc.rps), goal: '≥ 2× oidc-provider', pass: f ? (ratioOf(f.rps, oidc.rps) ?? 0) >= 2 : null });
    report.row({ metric: `${label} p99`, value: f ? `${f.p99} ms` : 'n/a', baseline: `oidc-provider ${oidc.p99} ms`, ratio: times(f?.p99, oidc.p99), goal: '< 10 ms', pass: f ? f.p99 < 10 : null });
    report.row({ metric: `${label} errors`, value: f ? String(f.errors) : 'n/a', baseline: `oidc-provider ${oidc.errors}`, ratio: '', goal: '0', pass: f ? f.errors === 0 : null });
    if (f && f.errors) report.fail(`introspection (${name}): ${f.errors} failed requests`);
  }
  report.row({ metric: 'introspection (express) vs bare node:http', value: fmt(express.rps), baseline: `node:http ${fmt(bare.rps)}`, ratio: times(express.rps, bare.rps), goal: '', pass: null });
  if (before) report.row({ metric: 'introspection (express) × before', value: fmt(express.rps), baseline: prior ? `before ${fmt(prior.rps)}` : 'n/a', ratio: times(express.rps, prior?.rps), goal: '', pass: null });
  log(`introspection: express ${show(express)} | fastify ${fastify ? show(fastify) : `n/a (${fastifyNote})`} | node:http ${show(bare)} | oidc-provider ${show(oidc)}${before ? ` | before ${show(prior)}` : ''}`);
}
