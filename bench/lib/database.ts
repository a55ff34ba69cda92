import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { withDatabase } from '../../src/database/data-source-options';
import { DatabaseServer, startEmbeddedPostgres } from '../../src/database/embedded-database';
import { freePort } from './ports';

/**
 * The PostgreSQL server of a run (BENCH_DATABASE_URL / TEST_DATABASE_URL, else an
 * embedded one whose log goes to a file), the databases the run creates on it (each
 * deployment gets a `bench_<hex>` main database; its tenant databases share the
 * prefix) and the statistics the scenarios read.
 */
export class BenchDatabases {
  private readonly created: string[] = [];

  private constructor(
    readonly serverUrl: string,
    readonly port: number,
    private readonly admin: Client,
    private readonly server?: DatabaseServer,
    /** The embedded cluster's folder, removed once it has stopped. */
    private readonly serverDir?: string,
    /** The server's postmaster, when it runs on this machine (its CPU is then PostgreSQL's, apart from the rest of the machine's). */
    private readonly postmasterPid?: number,
  ) {}

  static async open(databaseUrl: string | undefined, runDir: string, settings: Record<string, string> = {}): Promise<BenchDatabases> {
    let server: DatabaseServer | undefined;
    let url = databaseUrl;
    let dir: string | undefined;
    if (!url) {
      dir = mkdtempSync(join(tmpdir(), 'iam-bench-pg-'));
      chmodSync(dir, 0o755);
      server = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), database: 'postgres', logFile: join(runDir, 'postgres.log'), settings });
      url = server.url;
    }
    const admin = new Client({ connectionString: url, application_name: 'iam-bench' });
    await admin.connect();
    // A backend's parent is its postmaster: on this machine when /proc shows that backend as a PostgreSQL process.
    const { rows } = await admin.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = procStat(rows[0].pid);
    const postmasterPid = backend?.command === 'postgres' ? Number(backend.fields[1]) : undefined;
    return new BenchDatabases(url, Number(new URL(url).port || 5432), admin, server, dir, postmasterPid);
  }

  /**
   * CPU time PostgreSQL has used so far, in ms: its postmaster, the children it has
   * reaped (backends that ended, autovacuum workers) and those still running; null
   * when the server is not on this machine. Kernel threads and other daemons are not
   * in it, so the machine's busy time less this and the services' is the rest of the
   * machine (on a VM, its memory monitor, say).
   */
  postgresCpuMs(): number | null {
    if (this.postmasterPid === undefined) return null;
    const postmaster = procStat(this.postmasterPid);
    if (!postmaster) return null;
    const f = postmaster.fields;
    let ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    const parent = String(this.postmasterPid);
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const child = procStat(Number(entry));
      if (child && child.fields[1] === parent) ticks += Number(child.fields[11]) + Number(child.fields[12]);
    }
    return (ticks * 1000) / CLOCK_TICKS;
  }

  /** A fresh, empty main database; returns its URL and name (the prefix of its tenant databases). */
  async create(): Promise<{ url: string; name: string }> {
    const name = `bench_${randomBytes(4).toString('hex')}`;
    await this.admin.query(`CREATE DATABASE "${name}"`);
    this.created.push(name);
    return { url: withDatabase(this.serverUrl, name), name };
  }

  /** Open server connections to a deployment's databases, by application name. */
  async connections(prefix: string): Promise<{ total: number; byApplication: Record<string, number> }> {
    const { rows } = await this.admin.query<{ app: string; n: number }>(
      // Client connections only: with many databases PostgreSQL's autovacuum workers come and go in them too.
      `SELECT coalesce(nullif(application_name, ''), '?') AS app, count(*)::int AS n FROM pg_stat_activity WHERE starts_with(datname, $1) AND backend_type = 'client backend' GROUP BY 1 ORDER BY 1`,
      [prefix],
    );
    const byApplication = Object.fromEntries(rows.map((r) => [r.app, r.n]));
    return { total: rows.reduce((s, r) => s + r.n, 0), byApplication };
  }

  /** Connections the server still accepts: max_connections less those open and those reserved for superusers. */
  async headroom(): Promise<number> {
    const { rows } = await this.admin.query<{ n: number }>(
      `SELECT (current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int - (SELECT count(*) FROM pg_stat_activity))::int AS n`,
    );
    return rows[0].n;
  }

  /** Committed transactions so far in a deployment's databases (pg_stat_database). */
  async commits(prefix: string): Promise<number> {
    const { rows } = await this.admin.query<{ n: string }>(`SELECT coalesce(sum(xact_commit), 0)::bigint AS n FROM pg_stat_database WHERE starts_with(datname, $1)`, [prefix]);
    return Number(rows[0].n);
  }

  /** Sessions (connections) opened so far to a deployment's databases (pg_stat_database). */
  async sessions(prefix: string): Promise<number> {
    const { rows } = await this.admin.query<{ n: string }>(`SELECT coalesce(sum(sessions), 0)::bigint AS n FROM pg_stat_database WHERE starts_with(datname, $1)`, [prefix]);
    return Number(rows[0].n);
  }

  /** Bytes of the largest database of a deployment (its main database aside): what one more tenant database costs. */
  async largestTenantDatabaseBytes(prefix: string): Promise<number> {
    const { rows } = await this.admin.query<{ n: string | null }>(
      `SELECT max(pg_database_size(datname))::bigint AS n FROM pg_database WHERE starts_with(datname, $1) AND datname <> $1`,
      [prefix],
    );
    return Number(rows[0].n ?? 0);
  }

  /** Free bytes on the file system of the server's data directory, when it is on this machine (else null). */
  async freeDiskBytes(): Promise<number | null> {
    const { rows } = await this.admin.query<{ dir: string }>(`SELECT current_setting('data_directory') AS dir`);
    const dir = rows[0]?.dir;
    if (!dir || !existsSync(dir)) return null;
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize;
  }

  async close(): Promise<void> {
    try {
      for (const name of this.created) {
        const { rows } = await this.admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [name]);
        for (const row of rows) await this.admin.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
      }
    } finally {
      await this.admin.end();
      await this.server?.stop();
      if (this.serverDir) rmSync(this.serverDir, { recursive: true, force: true });
    }
  }
}

/** Resident memory of a process in MiB (VmRSS from /proc/<pid>/status), or null when unreadable. */
export function rssMiB(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round((Number(m[1]) / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}

/**
 * A process's command name and the fields of /proc/<pid>/stat after it (the name
 * may hold spaces): [1] is the parent's pid, [11] and [12] utime and stime, [13] and
 * [14] those of its reaped children, in clock ticks. Null when the process is gone.
 */
function procStat(pid: number): { command: string; fields: string[] } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const end = stat.lastIndexOf(')');
    return { command: stat.slice(stat.indexOf('(') + 1, end), fields: stat.slice(end + 2).split(' ') };
  } catch {
    return null;
  }
}

/** CPU time a process has used so far, in ms (utime + stime from /proc/<pid>/stat), or null when unreadable. */
export function processCpuMs(pid: number): number | null {
  const stat = procStat(pid);
  return stat ? ((Number(stat.fields[11]) + Number(stat.fields[12])) * 1000) / CLOCK_TICKS : null;
}

/** CPU time the whole machine has been busy so far, in ms (every core, from /proc/stat). */
export function machineBusyMs(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = cpu[3] + (cpu[4] ?? 0);
  return ((cpu.reduce((a, b) => a + b, 0) - idle) * 1000) / CLOCK_TICKS;
}

/** Linux's USER_HZ: /proc reports CPU times in these ticks. */
const CLOCK_TICKS = 100;
