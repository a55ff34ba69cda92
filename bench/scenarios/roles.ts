import { BenchContext, introspectionRequest, Target } from '../lib/context';
import { userLogin, userWithToken } from '../lib/fixture';
import { call, ok } from '../lib/http';
import { figures, LoadFigures, runLoad } from '../lib/load';
import { fmt, log, ratioOf, times } from '../lib/report';

const ROLES = 3;
const PERMISSIONS = 20;
/** Introspection with roles in the answer must stay within 5 % of the same run without. */
const GOAL_RATIO = 0.95;

/**
 * Roles in introspection: a user holding 3 roles with 20 permissions between them
 * introspects their own token, beside a user holding none, at BENCH_CONNECTIONS,
 * in the order without, with, with, without (so a drift of the machine during the
 * run weighs on both alike); each figure is the mean of its two loads.
 */
export async function rolesScenario(ctx: BenchContext, main: Target): Promise<void> {
  const { config, report } = ctx;
  const A = main.instance.base;
  const t = main.tenant;
  const permissions = Array.from({ length: PERMISSIONS }, (_, i) => `bench-app:resource-${i}:${i % 2 ? 'read' : 'write'}`);
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
  const check = await call('POST', `${A}/api/v1/introspect`, { token: holderToken }, holderToken);
  const answered = check.body as { roles?: unknown[]; permissions?: unknown[] };
  if (check.status !== 200 || answered.roles?.length !== ROLES || answered.permissions?.length !== PERMISSIONS) {
    throw new Error(`introspection of the role holder answered ${check.status} ${JSON.stringify(check.body)}`);
  }

  const load = async (token: string): Promise<LoadFigures> => {
    const opts = { ...introspectionRequest(A, token), connections: config.connections };
    await runLoad({ ...opts, duration: 2 });
    return figures(await runLoad({ ...opts, duration: config.seconds }));
  };
  log('roles: introspection without roles, with, with, without');
  const without1 = await load(plain.token);
  const with1 = await load(holderToken);
  const with2 = await load(holderToken);
  const without2 = await load(plain.token);
  const mean = (a: LoadFigures, b: LoadFigures) => ({ rps: (a.rps + b.rps) / 2, p99: Math.max(a.p99, b.p99), errors: a.errors + b.errors });
  const without = mean(without1, without2);
  const withRoles = mean(with1, with2);
  report.set('roles', { roles: ROLES, permissions: PERMISSIONS, connections: config.connections, without: [without1, without2], with: [with1, with2] });
  const ratio = ratioOf(withRoles.rps, without.rps) ?? 0;
  report.row({
    metric: `introspection with ${ROLES} roles / ${PERMISSIONS} permissions in the answer, ${config.connections} conn`,
    value: `${fmt(withRoles.rps)} req/s, p99 ${withRoles.p99} ms`,
    baseline: `without roles ${fmt(without.rps)} req/s, p99 ${without.p99} ms`,
    ratio: times(withRoles.rps, without.rps),
    goal: `≥ ${GOAL_RATIO}× without roles`,
    pass: ratio >= GOAL_RATIO && withRoles.errors === 0,
  });
  if (withRoles.errors || without.errors) report.fail(`roles: ${withRoles.errors + without.errors} failed introspection requests`);
  log(`roles: with ${fmt(withRoles.rps)} req/s vs without ${fmt(without.rps)} req/s (${times(withRoles.rps, without.rps)})`);
}
