/* eslint-disable no-console -- a benchmark prints its figures */
import { userListBench, UserListBenchRow } from '../user-list';
import { BenchContext, Target } from '../lib/context';
import { fmt, log, times } from '../lib/report';

interface UserListResult {
  report: string;
  rows: UserListBenchRow[];
}

/** userListBench answers `{ report, rows }`; an older version answered only the printed report (accepted too). */
function asResult(value: unknown): UserListResult {
  if (typeof value === 'string') return { report: value, rows: [] };
  const v = value as Partial<UserListResult> | null;
  return { report: typeof v?.report === 'string' ? v.report : '', rows: Array.isArray(v?.rows) ? v.rows : [] };
}

/** Scenario 7: operation 6 over BENCH_USERS users (bench/user-list.ts), its rows added to the table. */
export async function userListScenario(ctx: BenchContext, main: Target): Promise<void> {
  log(`user list: seeding ${ctx.config.users} users`);
  const result = asResult(
    (await userListBench({
      base: main.instance.base,
      serverUrl: ctx.dbs.serverUrl,
      mainDatabase: main.deployment.databaseName,
      tenantId: main.tenant.tenantID,
      sectorId: main.tenant.sectorID,
      token: main.tenant.adminToken,
      users: ctx.config.users,
    })) as unknown,
  );
  console.log(result.report);
  ctx.report.set('userList', { users: ctx.config.users, rows: result.rows, report: result.report });
  for (const r of result.rows) {
    ctx.report.row({
      metric: `user list: ${r.label}`,
      value: `p50 ${fmt(r.serviceP50Ms)} ms, p90 ${fmt(r.serviceP90Ms)} ms`,
      baseline: `direct SQL p50 ${fmt(r.directP50Ms, 1)} ms`,
      ratio: times(r.serviceP50Ms, r.directP50Ms),
      goal: `p50 ≤ ${fmt(r.targetP50Ms)} ms`,
      pass: r.serviceP50Ms <= r.targetP50Ms,
    });
  }
}
