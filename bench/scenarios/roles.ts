import { BenchContext, introspectionRequest, Target } from '../lib/context';
import { userLogin, userWithToken } from '../lib/fixture';
import { call, ok } from '../lib/http';
import { processCpuMs } from '../lib/database';
import { figures, LoadFigures, runLoad } from '../lib/load';
import { fmt, log, ratioOf, times } from '../lib/report';

const ROLES = 3;
const PERMISSIONS = 20;
/** Introspection with roles in the answer must stay within 5 % of the same run without. */
const GOAL_RATIO = 0.95;

/**
 * Roles in introspection: a backend (the tenant's admin token as its credential)
 * introspects the token of a user holding 3 roles with 20 permissions between them,
 * beside the token of a user holding none, at BENCH_CONNECTIONS, in the order
 * without, with, with, without (so a drift of the machine during the run weighs on
 * both alike), then without, with again; each figure is the mean of its three
 * loads, beside the service's CPU time per request (from /proc).
 */
export async function rolesScenario(ctx: BenchContext, main: Target): Promise<void> {
  const { config, report } = ctx;
  const A = main.instance.base;
  const t = main.tenant;
  // Permission strings as apps name them (`invoices:read`): 10 resources × read and write.
  const permissions = ['invoices', 'refunds', 'customers', 'reports', 'tickets', 'orders', 'products', 'accounts', 'billing', 'audit']
    .flatMap((resource) => [`${resource}:read`, `${resource}:write`])
    .slice(0, PERMISSIONS);
  const names: string[] = [];
  for (let r = 0; r < ROLES; r++) {
    const name = `bench-role-${r}`;
    names.push(name);
    const share = permissions.filter((_, i) => i % ROLES === r);
    await ok('PUT', `${A}/api/v1/sectors/${t.sectorID}/roles/${name}`, { description: 'bench', permissions: share }, t.adminToken);
  }
  const plain = await userWithToken(A, t);
  const holder = await userWithToken(A, t);
  await ok('PUT', `${A}/api/v1/users/${holder.sub}/roles`, { roles: names }, t.adminToken);
  const holderToken = await userLogin(A, holder.email, t.sectorID);
  const check = await call('POST', `${A}/api/v1/introspect`, { token: holderToken }, t.adminToken);
  const answered = check.body as { roles?: unknown[]; permissions?: unknown[] };
  if (check.status !== 200 || answered.roles?.length !== ROLES || answered.permissions?.length !== PERMISSIONS) {
    throw new Error(`introspection of the role holder answered ${check.status} ${JSON.stringify(check.body)}`);
  }

  const pid = main.instance.pid;
  /** A load's figures and the service's CPU time per request during it (µs). */
  const load = async (token: string): Promise<LoadFigures & { cpuUsPerRequest: number | null }> => {
    const opts = { ...introspectionRequest(A, t.adminToken), body: JSON.stringify({ token }), connections: config.connections };
    await runLoad({ ...opts, duration: 2 });
    const before = processCpuMs(pid);
    const f = figures(await runLoad({ ...opts, duration: config.seconds }));
    const after = processCpuMs(pid);
    return { ...f, cpuUsPerRequest: before === null || after === null || !f.requests ? null : Math.round(((after - before) * 1000) / f.requests) };
  };
  log('roles: introspection without roles, with, with, without, without, with');
  const without1 = await load(plain.token);
  const with1 = await load(holderToken);
  const with2 = await load(holderToken);
  const without2 = await load(plain.token);
  const without3 = await load(plain.token);
  const with3 = await load(holderToken);
  type Load = Awaited<ReturnType<typeof load>>;
  const mean = (loads: Load[]) => ({
    rps: loads.reduce((sum, l) => sum + l.rps, 0) / loads.length,
    p99: Math.max(...loads.map((l) => l.p99)),
    errors: loads.reduce((sum, l) => sum + l.errors, 0),
    cpuUs: loads.some((l) => l.cpuUsPerRequest === null) ? null : loads.reduce((sum, l) => sum + (l.cpuUsPerRequest ?? 0), 0) / loads.length,
  });
  const without = mean([without1, without2, without3]);
  const withRoles = mean([with1, with2, with3]);
  report.set('roles', { roles: ROLES, permissions: PERMISSIONS, connections: config.connections, without: [without1, without2, without3], with: [with1, with2, with3] });
  const ratio = ratioOf(withRoles.rps, without.rps) ?? 0;
  report.row({
    metric: `introspection with ${ROLES} roles / ${PERMISSIONS} permissions in the answer, ${config.connections} conn`,
    value: `${fmt(withRoles.rps)} req/s, p99 ${withRoles.p99} ms`,
    baseline: `without roles ${fmt(without.rps)} req/s, p99 ${without.p99} ms`,
    ratio: times(withRoles.rps, without.rps),
    goal: `≥ ${GOAL_RATIO}× without roles`,
    pass: ratio >= GOAL_RATIO && withRoles.errors === 0,
  });
  report.row({
    metric: 'service CPU per introspection, with roles / without',
    value: `${fmt(withRoles.cpuUs)} µs`,
    baseline: `without roles ${fmt(without.cpuUs)} µs`,
    ratio: times(withRoles.cpuUs, without.cpuUs),
    goal: '',
    pass: null,
  });
  if (withRoles.errors || without.errors) report.fail(`roles: ${withRoles.errors + without.errors} failed introspection requests`);
  log(`roles: with ${fmt(withRoles.rps)} req/s vs without ${fmt(without.rps)} req/s (${times(withRoles.rps, without.rps)})`);
}
