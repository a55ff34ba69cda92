import { Client } from 'pg';
import { paging } from '../src/common/wire/paging';
import { withDatabase } from '../src/database/data-source-options';
import type { UserSort } from '../src/user/dto/user.dto';
import { countFromCounters, REVERSE_FROM_OFFSET, UserListSpec, userCountSql, userPageSql } from '../src/user/user-list.query';

/**
 * The user-list scenario of `npm run bench`: one sector seeded with BENCH_USERS
 * (default 1,000,000) users straight into the tenant database, then operation 6
 * over HTTP — first page of a broad search, of a selective search, a filtered and
 * sorted page, an exact email, a deep page — each beside the very SQL the service
 * runs (`src/user/user-list.query.ts`), timed directly on PostgreSQL: the page query
 * and the count query apart (where the time goes) and one after the other (the
 * floor the service can reach).
 */

export interface UserListBenchInput {
  base: string;
  serverUrl: string;
  mainDatabase: string;
  tenantId: string;
  sectorId: string;
  token: string;
  users: number;
  /** Timed requests per case (default 10, after one warm-up). */
  samples?: number;
}

export interface UserListBenchRow {
  label: string;
  serviceP50Ms: number;
  serviceP90Ms: number;
  directP50Ms: number;
  targetP50Ms: number;
}

export interface UserListBenchResult {
  report: string;
  rows: UserListBenchRow[];
}

const SEED_SQL = `
INSERT INTO users (id, sector_id, username, email, email_verified, name, is_admin, created_at, updated_at)
SELECT gen_random_uuid(), $1, 'user' || i, 'user' || i || '@example' || (i % 100) || '.com', i % 3 = 0,
       (ARRAY['Alice','Bob','Carol','Dave','Eve','Frank','Grace','Heidi','Ivan','Judy'])[1 + i % 10] || ' ' || md5(i::text),
       false, now() - make_interval(secs => i), now() - make_interval(secs => i % 1000)
FROM generate_series($2::int, $3::int) AS i`;

interface Case {
  label: string;
  query: Record<string, string | number>;
  targetP50Ms: number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timed(n: number, fn: () => Promise<void>): Promise<number[]> {
  await fn(); // warm-up
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

/** The repository's input for a request's query string, as the service derives it. */
function specOf(sectorId: string, q: Record<string, string | number>): UserListSpec {
  return {
    sectorId,
    filter: {
      searchTerm: q.searchTerm === undefined ? undefined : String(q.searchTerm),
      filterEmail: q.filterEmail === undefined ? undefined : String(q.filterEmail),
      filterVerified: q.filterVerified === undefined ? undefined : q.filterVerified === 'true',
    },
    sort: (q.sortBy as UserSort | undefined) ?? 'created_at',
    desc: q.sortDesc === 'true',
    paging: paging(q.pageSize === undefined ? undefined : Number(q.pageSize), q.page === undefined ? undefined : Number(q.page)),
  };
}

const ms = (v: number) => `${v.toFixed(1).padStart(6)} ms`;

export async function userListBench(input: UserListBenchInput): Promise<UserListBenchResult> {
  const samples = input.samples ?? 10;
  const admin = new Client({ connectionString: withDatabase(input.serverUrl, input.mainDatabase) });
  await admin.connect();
  const [{ database_name: tenantDb }] = (await admin.query('SELECT database_name FROM tenants WHERE id = $1', [input.tenantId])).rows;
  await admin.end();
  const db = new Client({ connectionString: withDatabase(input.serverUrl, tenantDb) });
  await db.connect();
  try {
    const t0 = performance.now();
    const batch = 100_000;
    for (let from = 1; from <= input.users; from += batch) {
      await db.query(SEED_SQL, [input.sectorId, from, Math.min(input.users, from + batch - 1)]);
    }
    await db.query('VACUUM ANALYZE users');
    await db.query('VACUUM ANALYZE user_search_docs');
    const seedSeconds = (performance.now() - t0) / 1000;

    const deepPage = Math.max(1, Math.floor((input.users * 0.8) / 20));
    const cases: Case[] = [
      { label: 'search "alice" (10 % match), first page', query: { searchTerm: 'alice', pageSize: 20 }, targetP50Ms: 100 },
      { label: 'search "user77777" (selective), first page', query: { searchTerm: 'user77777', pageSize: 20 }, targetP50Ms: 50 },
      { label: 'filterVerified=true, sortBy=name, page 3', query: { filterVerified: 'true', sortBy: 'name', pageSize: 20, page: 3 }, targetP50Ms: 50 },
      { label: 'filterEmail (exact)', query: { filterEmail: 'USER4242@example42.com' }, targetP50Ms: 50 },
      { label: `deep page ${deepPage} (offset ${(deepPage - 1) * 20}), sortBy=created_at`, query: { page: deepPage, pageSize: 20 }, targetP50Ms: 50 },
    ];
    const rows: UserListBenchRow[] = [];
    const lines: string[] = [];
    for (const c of cases) {
      const qs = new URLSearchParams(Object.entries(c.query).map(([k, v]): [string, string] => [k, String(v)])).toString();
      const http = await timed(samples, async () => {
        const res = await fetch(`${input.base}/api/v1/sectors/${input.sectorId}/users?${qs}`, { headers: { authorization: `Bearer ${input.token}` } });
        if (!res.ok) throw new Error(`${c.label}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      });
      // The service's own SQL, timed apart on PostgreSQL.
      const spec = specOf(input.sectorId, c.query);
      const countSql = userCountSql(spec);
      const total: number = (await db.query(countSql.sql, countSql.params)).rows[0].n;
      const counters = countFromCounters(spec.filter);
      // As the repository runs it: an unsearched page carries its count, and past REVERSE_FROM_OFFSET knows it first.
      const pageSql = userPageSql(spec, counters ? { total: spec.paging.offset >= REVERSE_FROM_OFFSET ? total : undefined, withCount: true } : {});
      const runPage = async () => {
        await db.query(pageSql.sql, pageSql.params);
      };
      const runCount = async () => {
        await db.query(countSql.sql, countSql.params);
      };
      const page = await timed(samples, runPage);
      const count = await timed(samples, runCount);
      const direct = await timed(samples, async () => {
        await runCount();
        await runPage();
      });
      const row: UserListBenchRow = {
        label: c.label,
        serviceP50Ms: percentile(http, 50),
        serviceP90Ms: percentile(http, 90),
        directP50Ms: percentile(direct, 50),
        targetP50Ms: c.targetP50Ms,
      };
      rows.push(row);
      const how = `${counters ? 'count from counters, in the page statement' : 'counted beside the page'}${pageSql.reversed ? ', page read from the end' : ''}`;
      lines.push(
        `  ${c.label.padEnd(56)} service p50 ${ms(row.serviceP50Ms)}  p90 ${ms(row.serviceP90Ms)}   target < ${row.targetP50Ms} ms: ${row.serviceP50Ms < row.targetP50Ms ? 'met' : 'NOT met'}\n` +
          `  ${''.padEnd(56)} SQL page p50 ${ms(percentile(page, 50))}  count p50 ${ms(percentile(count, 50))}  (totalCount ${total.toLocaleString('en-US')}; ${how})  page+count ${ms(row.directP50Ms)}`,
      );
    }
    const report = `User list: GET /api/v1/sectors/{id}/users on one sector of ${input.users.toLocaleString('en-US')} users (seeded in ${seedSeconds.toFixed(0)} s), ${samples} sequential requests each;
the service's page and count SQL timed apart on PostgreSQL below each row
${lines.join('\n')}`;
    return { report, rows };
  } finally {
    await db.end();
  }
}
