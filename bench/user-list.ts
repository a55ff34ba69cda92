/* eslint-disable no-console -- a benchmark prints its figures */
import { Client } from 'pg';
import { withDatabase } from '../src/database/data-source-options';

/**
 * The user-list scenario of `npm run bench`: one sector seeded with BENCH_USERS
 * (default 1,000,000) users straight into the tenant database, then operation 6
 * over HTTP — first page of a broad search, of a selective search, a filtered and
 * sorted page, a deep page — each beside the same two queries (page and count) run
 * directly on PostgreSQL, which is the floor the service can reach.
 */

export interface UserListBenchInput {
  base: string;
  serverUrl: string;
  mainDatabase: string;
  tenantId: string;
  sectorId: string;
  token: string;
  users: number;
}

const SEED_SQL = `
INSERT INTO users (id, sector_id, username, email, email_verified, name, is_admin, created_at, updated_at)
SELECT gen_random_uuid(), $1, 'user' || i, 'user' || i || '@example' || (i % 100) || '.com', i % 3 = 0,
       (ARRAY['Alice','Bob','Carol','Dave','Eve','Frank','Grace','Heidi','Ivan','Judy'])[1 + i % 10] || ' ' || md5(i::text),
       false, now() - make_interval(secs => i), now() - make_interval(secs => i % 1000)
FROM generate_series($2::int, $3::int) AS i`;

interface Case {
  label: string;
  query: string;
  sql: { where: string; params: unknown[]; order: string; offset: number };
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

export async function userListBench(input: UserListBenchInput): Promise<string> {
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
    const seedSeconds = (performance.now() - t0) / 1000;

    const deepPage = Math.max(1, Math.floor((input.users * 0.8) / 20));
    const cases: Case[] = [
      {
        label: 'search "alice", first page',
        query: 'searchTerm=alice&pageSize=20',
        sql: { where: "lower(name || chr(1) || email || chr(1) || username) LIKE '%alice%'", params: [], order: 'created_at, id', offset: 0 },
      },
      {
        label: 'search "user77777", first page',
        query: 'searchTerm=user77777&pageSize=20',
        sql: { where: "lower(name || chr(1) || email || chr(1) || username) LIKE '%user77777%'", params: [], order: 'created_at, id', offset: 0 },
      },
      {
        label: 'filterVerified=true, sortBy=name',
        query: 'filterVerified=true&sortBy=name&pageSize=20&page=3',
        sql: { where: 'email_verified = true', params: [], order: 'lower(name), id', offset: 40 },
      },
      {
        label: 'filterEmail (exact)',
        query: 'filterEmail=USER4242@example42.com',
        sql: { where: "email <> '' AND lower(email) = lower('USER4242@example42.com')", params: [], order: 'created_at, id', offset: 0 },
      },
      {
        label: `deep page ${deepPage} (offset ${(deepPage - 1) * 20}), sortBy=created_at`,
        query: `page=${deepPage}&pageSize=20`,
        sql: { where: 'true', params: [], order: 'created_at, id', offset: (deepPage - 1) * 20 },
      },
    ];
    const rows: string[] = [];
    for (const c of cases) {
      const http = await timed(10, async () => {
        const res = await fetch(`${input.base}/api/v1/sectors/${input.sectorId}/users?${c.query}`, { headers: { authorization: `Bearer ${input.token}` } });
        if (!res.ok) throw new Error(`${c.label}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      });
      const direct = await timed(10, async () => {
        const where = `sector_id = '${input.sectorId}' AND ${c.sql.where}`;
        await db.query(`SELECT * FROM users WHERE ${where} ORDER BY ${c.sql.order} LIMIT 20 OFFSET ${c.sql.offset}`);
        await db.query(`SELECT count(*) FROM users WHERE ${where}`);
      });
      rows.push(
        `  ${c.label.padEnd(52)} service p50 ${percentile(http, 50).toFixed(1).padStart(7)} ms  p90 ${percentile(http, 90).toFixed(1).padStart(7)} ms` +
          `   direct SQL p50 ${percentile(direct, 50).toFixed(1).padStart(7)} ms   ratio ${(percentile(http, 50) / percentile(direct, 50)).toFixed(2)}x`,
      );
    }
    return `User list: GET /api/v1/sectors/{id}/users on one sector of ${input.users.toLocaleString('en-US')} users (seeded in ${seedSeconds.toFixed(0)} s), 10 sequential requests each
${rows.join('\n')}`;
  } finally {
    await db.end();
  }
}
