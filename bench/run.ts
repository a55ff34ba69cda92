/* eslint-disable no-console -- a benchmark prints its figures */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfig, Scenario } from './lib/config';
import { BenchContext, Target } from './lib/context';
import { BenchDatabases } from './lib/database';
import { platformLogin, provisionTenant, userWithToken } from './lib/fixture';
import { percentile } from './lib/load';
import { fmt, log, Report } from './lib/report';
import { deployment, ServiceInstance, snapshotBuild, startService } from './lib/service';
import { introspectionScenario } from './scenarios/introspection';
import { oidcScenario } from './scenarios/oidc';
import { loginScenario, mixedScenario } from './scenarios/login';
import { readsScenario } from './scenarios/reads';
import { revocationScenario } from './scenarios/revocation';
import { rolesScenario } from './scenarios/roles';
import { webhooksScenario } from './scenarios/webhooks';
import { extensionsScenario } from './scenarios/extensions';
import { scaleOutScenario } from './scenarios/scale-out';
import { tenantsScenario } from './scenarios/tenants';
import { userListScenario } from './scenarios/user-list';
import { summarizeProfiles } from './lib/profile';

/**
 * `npm run bench`: every scenario in one run, each beside its baseline (see
 * docs/performance.md). The built service (dist/) runs as child processes
 * on fresh databases; their output goes to log files in the run's folder. The run
 * ends with one table of figures, baselines, ratios and goals, and a JSON file with
 * every figure (BENCH_OUTPUT). Exit code 1 when a scenario failed outright: a
 * revocation B never noticed within 5 s, failed requests, or a scenario that broke.
 */

/** Starts an instance of `root`'s build on a fresh database with a tenant, its admin and a member signed in. */
async function setUpTarget(ctx: BenchContext, label: string, build: string, provisioningTimes?: number[]): Promise<Target> {
  const db = await ctx.dbs.create();
  const dep = deployment(build, db, ctx.config.bcryptCost);
  const instance = await startService(dep, ctx.runDir, label);
  try {
    const platform = await platformLogin(instance.base);
    const tenant = await provisionTenant(instance.base, platform);
    // Provisioning latency (5 sequential, each with a first admin whose password is hashed at BCRYPT_COST).
    for (let i = 0; provisioningTimes && i < 5; i++) {
      const t0 = performance.now();
      await provisionTenant(instance.base, platform, 'bench', false);
      provisioningTimes.push(performance.now() - t0);
    }
    const member = await userWithToken(instance.base, tenant);
    return { label, deployment: dep, instance, tenant, member: { sub: member.sub, token: member.token } };
  } catch (err) {
    await instance.stop();
    throw err;
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const runDir = mkdtempSync(join(tmpdir(), 'iam-bench-run-'));
  const report = new Report();
  const has = (s: Scenario) => config.scenarios.has(s);
  if (config.before && !existsSync(join(config.before, 'dist', 'src', 'main.js'))) {
    throw new Error(`BENCH_BEFORE=${config.before}: no dist/src/main.js there (build that checkout first)`);
  }
  console.log(
    `Benchmark: ${config.cores} cores, node ${process.version}, ${config.seconds} s per load, ${config.connections} connections, ` +
      `BCRYPT_COST ${config.bcryptCost}, scenarios ${[...config.scenarios].join(',')}${config.before ? `, before = ${config.before}` : ''}` +
      `, PostgreSQL ${config.databaseUrl ? 'at BENCH_DATABASE_URL' : Object.keys(config.pgSettings).length ? `embedded (${Object.entries(config.pgSettings).map(([k, v]) => `${k}=${v}`).join(', ')})` : 'embedded (stock settings)'}`,
  );
  console.log(`Logs (services, baselines, PostgreSQL): ${runDir}`);

  if (!existsSync(join(config.root, 'dist', 'src', 'main.js'))) throw new Error('no dist/src/main.js: run `npm run build` first (npm run bench does)');
  const build = snapshotBuild(config.root);
  const dbs = await BenchDatabases.open(config.databaseUrl, runDir, config.pgSettings).catch((err: unknown) => {
    rmSync(build, { recursive: true, force: true });
    throw err;
  });
  const ctx: BenchContext = { config, build, runDir, dbs, report };
  const started = new Date();
  const step = async (name: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log(`${name} FAILED: ${message}`);
      report.fail(`${name}: ${message.split('\n')[0]}`);
    }
  };

  let main: Target | undefined;
  let before: Target | undefined;
  let second: ServiceInstance | undefined;
  try {
    const needsMain = [...config.scenarios].some((s) => s !== 'tenants' && s !== 'extensions');
    if (needsMain) {
      log('starting the service (express) on a fresh database');
      const provisioning: number[] = [];
      main = await setUpTarget(ctx, 'service', ctx.build, provisioning);
      report.set('provisioning', { sequentialMs: provisioning, medianMs: percentile(provisioning, 50), maxMs: Math.max(...provisioning) });
      report.row({ metric: 'tenant provisioning with first admin (5 sequential)', value: `median ${fmt(percentile(provisioning, 50))} ms, max ${fmt(Math.max(...provisioning))} ms`, baseline: '', ratio: '', goal: '', pass: null });
    }
    if (config.before && (has('introspection') || has('reads') || has('login'))) {
      await step('before', async () => {
        log(`starting the earlier build from ${config.before}`);
        before = await setUpTarget(ctx, 'service-before', join(config.before!, 'dist'));
      });
    }
    if (main) {
      const m = main;
      if (has('introspection')) await step('introspection', () => introspectionScenario(ctx, m, before));
      if (has('roles')) await step('roles', () => rolesScenario(ctx, m));
      if (has('reads')) await step('reads', () => readsScenario(ctx, m, before));
      if (has('login')) await step('login', () => loginScenario(ctx, m, before));
      await before?.instance.stop();
      if (has('mixed')) await step('mixed', () => mixedScenario(ctx, m));
      if (has('scale-out') || has('revocation')) {
        await step('second instance', async () => {
          log('starting a second instance on the same database');
          second = await startService(m.deployment, runDir, 'service-b');
        });
        const b = second;
        if (b && has('scale-out')) await step('scale-out', () => scaleOutScenario(ctx, m, b));
        if (b && has('revocation')) await step('revocation', () => revocationScenario(ctx, m, b));
        await second?.stop();
      }
      if (has('oidc')) await step('oidc', () => oidcScenario(ctx, m));
      if (has('webhooks')) await step('webhooks', () => webhooksScenario(ctx, m));
      if (has('user-list') && config.users > 0) await step('user-list', () => userListScenario(ctx, m));
      await main.instance.stop();
    }
    if (has('extensions')) await step('extensions', () => extensionsScenario(ctx));
    if (has('tenants') && config.tenants > 0) await step('tenants', () => tenantsScenario(ctx));
  } finally {
    await before?.instance.stop();
    await second?.stop();
    await main?.instance.stop();
    await dbs.close().catch((err: unknown) => log(`cleanup: ${String(err)}`));
    rmSync(build, { recursive: true, force: true });
  }

  let commit = '';
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: config.root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    commit = git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') ? ' (with uncommitted changes)' : '');
  } catch {
    /* not a checkout */
  }
  report.write(config.output, {
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    commit,
    node: process.version,
    cores: config.cores,
    knobs: {
      seconds: config.seconds,
      connections: config.connections,
      users: config.users,
      tenants: config.tenants,
      tenantSample: config.tenantSample,
      bcryptCost: config.bcryptCost,
      scenarios: [...config.scenarios],
      before: config.before ?? null,
      database: config.databaseUrl ? 'external' : 'embedded',
    },
    logs: runDir,
  });
  console.log(`\nResults (${config.cores} cores shared by load generator, services and PostgreSQL; ${config.seconds} s per load)\n`);
  console.log(report.table());
  if (report.failures.length) console.log(`\nFailures:\n${report.failures.map((f) => `  - ${f}`).join('\n')}`);
  if (config.profile && existsSync(join(runDir, 'profiles', 'service'))) {
    console.log(`\nWhere the service's CPU time went (self time, main instance; flame graphs: the .cpuprofile files in ${join(runDir, 'profiles')}):`);
    console.log(summarizeProfiles(join(runDir, 'profiles', 'service')));
  }
  console.log(`\nJSON: ${config.output}\nLogs: ${runDir}`);
  if (report.failures.length) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
