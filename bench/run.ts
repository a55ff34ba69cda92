/* eslint-disable no-console -- a benchmark prints its figures */
import autocannon from 'autocannon';
import * as bcrypt from 'bcrypt';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { withDatabase } from '../src/database/data-source-options';
import { DatabaseServer, startEmbeddedPostgres } from '../src/database/embedded-database';
import { userListBench } from './user-list';

/**
 * `npm run bench`: starts the built service as a child process on a fresh
 * database and measures, each beside a baseline taken in the same run:
 *  - introspection throughput and latency under concurrent load, beside a bare
 *    node:http server answering a fixed JSON body;
 *  - password-login throughput, beside bcrypt verifications per second at the
 *    configured cost;
 *  - tenant provisioning latency.
 * Environment: BENCH_DATABASE_URL (a server to use; else TEST_DATABASE_URL; else
 * an embedded one), BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 50),
 * BCRYPT_COST (default 12), BENCH_USERS (users seeded for the user-list scenario,
 * default 1,000,000; 0 skips it).
 */

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const BCRYPT_COST = Number(process.env.BCRYPT_COST ?? 12);
const USERS = Number(process.env.BENCH_USERS ?? 1_000_000);
const ADMIN = 'bench-admin@platform.test';
const ADMIN_PASSWORD = 'bench-admin-password';

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => res(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the process exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready`);
}

async function json(url: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const parsed = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

function load(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((res, rej) => {
    autocannon(opts, (err, result) => (err ? rej(err) : res(result)));
  });
}

const BASELINE_SOURCE = `
const http = require('node:http');
const body = JSON.stringify({ sub: 'u', username: 'u', sectorID: 's', isAdmin: false, exp: '0', iat: '0', tenantID: 't' });
http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); }); })
  .listen(Number(process.env.PORT), '127.0.0.1', () => process.send && process.send('ready'));
`;

function startBaseline(port: number): Promise<ChildProcess> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['-e', BASELINE_SOURCE], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', () => res(child));
    child.once('exit', (code) => rej(new Error(`baseline exited ${code}`)));
  });
}

async function bcryptPerSecond(cost: number, seconds: number): Promise<number> {
  const hash = await bcrypt.hash('benchmark-password', cost);
  const parallel = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  let done = 0;
  const end = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (Date.now() < end) {
        await bcrypt.compare('benchmark-password', hash);
        done++;
      }
    }),
  );
  return done / ((Date.now() - started) / 1000);
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main(): Promise<void> {
  const root = resolve(__dirname, '..', '..');
  let server: DatabaseServer | undefined;
  let serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'iam-bench-pg-'));
    chmodSync(dir, 0o755);
    server = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), database: 'postgres' });
    serverUrl = server.url;
  }
  const dbName = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'iam-bench-'));
  const app = spawn(process.execPath, [join(root, 'dist', 'src', 'main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: withDatabase(serverUrl, dbName),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PUBLIC_URL: base,
      BCRYPT_COST: String(BCRYPT_COST),
      BOOTSTRAP_ADMIN_EMAIL: ADMIN,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let baseline: ChildProcess | undefined;
  try {
    await waitReady(`${base}/readyz`, app);
    const platform = (await json(`${base}/api/v1/login/password`, { username: ADMIN, password: ADMIN_PASSWORD })).token as string;

    // Provisioning latency (includes bcrypt of the first admin's password at the configured cost).
    const provisionMs: number[] = [];
    let tenant: Record<string, unknown> = {};
    for (let i = 0; i < 5; i++) {
      const slug = `bench-${i}-${randomBytes(3).toString('hex')}`;
      const t0 = performance.now();
      tenant = await json(`${base}/api/v1/tenants`, { slug, name: slug, adminEmail: `admin@${slug}.test`, adminPassword: 'tenant-admin-pw' }, platform);
      provisionMs.push(performance.now() - t0);
      tenant.adminEmail = `admin@${slug}.test`;
    }
    const sectorID = (tenant.sector as { sectorID: string }).sectorID;
    const token = (await json(`${base}/api/v1/login/password`, { username: tenant.adminEmail, password: 'tenant-admin-pw', sectorID })).token as string;

    const common = { connections: CONNECTIONS, duration: SECONDS, method: 'POST' as const, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ token }) };
    console.log(`\nwarming up introspection…`);
    await load({ ...common, url: `${base}/api/v1/introspect`, duration: 2 });
    const introspect = await load({ ...common, url: `${base}/api/v1/introspect` });
    const basePort = await freePort();
    baseline = await startBaseline(basePort);
    const bare = await load({ ...common, url: `http://127.0.0.1:${basePort}/` });
    baseline.kill();

    const loginConnections = Math.max(2, cpus().length * 2);
    const login = await load({
      url: `${base}/api/v1/login/password`,
      connections: loginConnections,
      duration: SECONDS,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: tenant.adminEmail, password: 'tenant-admin-pw', sectorID }),
    });
    const bcryptRate = await bcryptPerSecond(BCRYPT_COST, Math.min(SECONDS, 5));

    const userList = USERS > 0 ? await userListBench({ base, serverUrl, mainDatabase: dbName, tenantId: tenant.tenantID as string, sectorId: sectorID, token, users: USERS }) : '';

    const errors = (r: autocannon.Result) => r.errors + r.non2xx;
    provisionMs.sort((a, b) => a - b);
    console.log(`
Benchmark (${cpus().length} cores, ${SECONDS}s per scenario, node ${process.version})

Introspection: POST /api/v1/introspect, ${CONNECTIONS} connections
  service        ${fmt(introspect.requests.average)} req/s   p50 ${introspect.latency.p50} ms   p99 ${introspect.latency.p99} ms   errors ${errors(introspect)}
  bare node:http ${fmt(bare.requests.average)} req/s   p50 ${bare.latency.p50} ms   p99 ${bare.latency.p99} ms
  ratio          ${fmt((introspect.requests.average / bare.requests.average) * 100, 1)} % of the bare server's throughput

Password login: POST /api/v1/login/password, ${loginConnections} connections, bcrypt cost ${BCRYPT_COST}
  service        ${fmt(login.requests.average, 1)} logins/s   p50 ${login.latency.p50} ms   p99 ${login.latency.p99} ms   errors ${errors(login)}
  bcrypt alone   ${fmt(bcryptRate, 1)} verifications/s (libuv pool of ${process.env.UV_THREADPOOL_SIZE ?? 4})
  ratio          ${fmt((login.requests.average / bcryptRate) * 100, 1)} % of raw bcrypt throughput

Tenant provisioning (5 sequential, with first admin): median ${fmt(provisionMs[2])} ms, max ${fmt(provisionMs[4])} ms

${userList}
`);
    if (errors(introspect) || errors(login)) process.exitCode = 1;
  } finally {
    baseline?.kill();
    app.kill('SIGTERM');
    await new Promise((r) => app.once('exit', r));
    await admin.query(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [dbName]).then(async (r) => {
      for (const row of r.rows as Array<{ datname: string }>) await admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    });
    await admin.end();
    await server?.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
