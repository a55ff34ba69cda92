import { Inject, Injectable, Logger } from '@nestjs/common';
import { Client, escapeIdentifier } from 'pg';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig, MAIN_SERVER } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { databaseNameOf, tenantDataSourceOptions, withDatabase, EntityLists } from '../database/data-source-options';
import { MAIN_DATABASE_URL, ENTITY_LISTS } from '../database/tokens';
import { DirectoryRepository } from './directory.repository';
import type { TenantLocation } from './tenant.entity';
import { migrateUnderLock } from './tenant-db';

/** While holding a database's writes: how often to look for its writable sessions, and how long to let their transactions finish before ending them anyway. */
const WRITERS_POLL_MS = 10;
const WRITERS_WAIT_MS = 5_000;

/**
 * Creates and drops the physical storage of tenants: a database cloned from a
 * migrated template (pooled mode), on the main database's server or one of
 * TENANT_DATABASE_SERVERS, or a schema of the main database (schema mode).
 * Names carry a prefix derived from the main database, so several deployments can
 * share one server and the orphan sweep only ever touches its own.
 */
@Injectable()
export class TenantStorageService {
  private readonly logger = new Logger('TenantStorage');
  private readonly prefix: string;
  /**
   * Each tenant database server by name: the URL pools use, and the one for sessions
   * (the server itself where `url` is a pooler in transaction mode). The database part
   * is replaced per use.
   */
  private readonly servers: ReadonlyMap<string, { url: string; session: string }>;
  /** Servers whose template could not be prepared at start (they were unreachable). */
  private readonly unprepared = new Set<string>();
  private readonly preparing = new Map<string, Promise<void>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ENTITY_LISTS) private readonly entities: EntityLists,
    @Inject(MAIN_DATABASE_URL) private readonly mainUrl: string,
    private readonly directory: DirectoryRepository,
  ) {
    const main = databaseNameOf(mainUrl).toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 24);
    this.prefix = main;
    this.servers = new Map([
      [MAIN_SERVER, { url: mainUrl, session: mainUrl }],
      ...config.tenantDatabaseServers.map((s): [string, { url: string; session: string }] => [s.name, { url: s.url, session: s.directUrl ?? s.url }]),
    ]);
  }

  /** The names of the servers tenant databases may live on, the main database's (`main`) first. */
  get serverNames(): string[] {
    return [...this.servers.keys()];
  }

  /** The server a stored location names (null: the main database's). */
  serverOf(location: Pick<TenantLocation, 'databaseServer'>): string {
    return location.databaseServer ?? MAIN_SERVER;
  }

  /**
   * A server's URL with the database part set to `database` (its own database part when
   * none is given): the one for pools, or with `session` the one for sessions.
   */
  private serverUrl(server: string, database?: string, session = false): string {
    const entry = this.servers.get(server);
    const url = session ? entry?.session : entry?.url;
    // A directory row naming a server this instance is not configured with: its tenant cannot be reached.
    if (url === undefined) throw DomainError.unavailable(Reason.TENANT_DATABASE_UNAVAILABLE, `The database server "${server}" of this tenant is not configured on this instance.`);
    return database === undefined ? url : withDatabase(url, database);
  }

  get mode(): 'pooled' | 'schema' {
    return this.config.tenancyMode;
  }

  get templateDatabase(): string {
    return `${this.prefix}_tpl`;
  }

  /** The database-name prefix of this deployment's tenant databases. */
  get databasePrefix(): string {
    return `${this.prefix}_t_`;
  }

  /** Where a new tenant's tables go: its own database on `server` (pooled mode), or its schema of the main database. */
  locationFor(tenantId: string, server: string = MAIN_SERVER): TenantLocation {
    const hex = tenantId.replace(/-/g, '').toLowerCase();
    return this.mode === 'pooled'
      ? { storage: 'pooled', databaseName: `${this.databasePrefix}${hex}`, schemaName: null, databaseServer: server === MAIN_SERVER ? null : server }
      : { storage: 'schema', databaseName: null, schemaName: `t_${hex}`, databaseServer: null };
  }

  /** The main database as tenant databases' servers reach it, for their change relay (AUTH_RELAY_URL, else the main database's URL). */
  get relayUrl(): string {
    return this.config.authRelayUrl ?? this.mainUrl;
  }

  /** Connection URL of a tenant's database for its pool (the main one for schema tenants and the platform). */
  urlFor(location: TenantLocation): string {
    return location.storage === 'pooled' && location.databaseName ? this.serverUrl(this.serverOf(location), location.databaseName) : this.mainUrl;
  }

  /** Connection URL of a tenant's database for what needs a session of its own (LISTEN, advisory locks): never through a transaction pooler. */
  sessionUrlFor(location: TenantLocation): string {
    return location.storage === 'pooled' && location.databaseName ? this.serverUrl(this.serverOf(location), location.databaseName, true) : this.mainUrl;
  }

  /** A key for the advisory lock that guards a tenant's storage while it is being provisioned. */
  lockKey(location: TenantLocation): string {
    return `tenant-storage:${location.databaseName ?? location.schemaName}`;
  }

  /** A short-lived connection to a server's own database (the main database on the main server), for DDL of databases and schemas. */
  private async withAdminClient<T>(server: string, work: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ connectionString: this.serverUrl(server, undefined, true), application_name: 'iam-admin' });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /**
   * Makes sure the pooled-mode template database exists and carries every tenant
   * migration. Runs at start, under the migration lock.
   */
  async prepareTemplate(): Promise<void> {
    if (this.mode !== 'pooled') return;
    for (const server of this.servers.keys()) {
      try {
        await this.prepareTemplateOn(server);
        this.unprepared.delete(server);
      } catch (err) {
        // The main server must be there; another one may be down: its template is prepared before the next tenant is created on it.
        if (server === MAIN_SERVER) throw err;
        this.unprepared.add(server);
        this.logger.warn(`Could not prepare the tenant template on database server "${server}" (${(err as Error).message}); retried when a tenant is created there`);
      }
    }
  }

  private async prepareTemplateOn(server: string): Promise<void> {
    const name = this.templateDatabase;
    await this.withAdminClient(server, async (client) => {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (exists.rowCount === 0) {
        await client.query(`CREATE DATABASE ${escapeIdentifier(name)}`).catch((err: { code?: string }) => {
          if (err.code !== '42P04') throw err;
        });
      }
    });
    const ds = new DataSource(
      tenantDataSourceOptions(this.entities, this.serverUrl(server, name, true), { max: 1, idleTimeoutMillis: 1000, applicationName: 'iam-template' }),
    );
    await ds.initialize();
    try {
      await migrateUnderLock(ds, this.serverUrl(server, name, true), 'template', this.relayUrl);
    } finally {
      await ds.destroy();
    }
  }

  /** Prepares a server's template if the start could not (once at a time in this instance). */
  private ensureTemplate(server: string): Promise<void> {
    if (!this.unprepared.has(server)) return Promise.resolve();
    let pending = this.preparing.get(server);
    if (!pending) {
      pending = this.prepareTemplateOn(server)
        .then(() => void this.unprepared.delete(server))
        .finally(() => this.preparing.delete(server));
      this.preparing.set(server, pending);
    }
    return pending;
  }

  /** Creates the empty storage of a new tenant (committed at once: DDL of databases is not transactional). */
  async create(location: TenantLocation): Promise<void> {
    const server = this.serverOf(location);
    if (location.storage === 'pooled') await this.ensureTemplate(server);
    await this.withAdminClient(server, async (client) => {
      if (location.storage === 'pooled' && location.databaseName) {
        await this.createFromTemplate(client, location.databaseName);
      } else if (location.storage === 'schema' && location.schemaName) {
        await client.query(`CREATE SCHEMA ${escapeIdentifier(location.schemaName)}`);
      }
    });
  }

  private async createFromTemplate(client: Client, database: string): Promise<void> {
    // The template may be briefly in use while an instance migrates it at start.
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${escapeIdentifier(database)} TEMPLATE ${escapeIdentifier(this.templateDatabase)}`);
        return;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code !== '55006' || attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 50 + attempt * 50));
      }
    }
  }

  /**
   * Stops writes to a tenant's database (a move's pause): new sessions start read-only;
   * the sessions opened before are ended as soon as they are idle (a transaction under
   * way finishes first; after WRITERS_WAIT_MS the rest are ended anyway), and this
   * answers once none of them is left. Reads go on.
   */
  async holdWrites(location: TenantLocation): Promise<void> {
    const name = this.ownDatabase(location);
    await this.withAdminClient(this.serverOf(location), async (client) => {
      await client.query(`ALTER DATABASE ${escapeIdentifier(name)} SET default_transaction_read_only = on`);
      const { rows: since } = await client.query<{ at: Date }>('SELECT clock_timestamp() AS at');
      for (let waited = 0; ; waited += WRITERS_POLL_MS) {
        const idleOnly = waited < WRITERS_WAIT_MS ? `AND state = 'idle'` : '';
        await client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND backend_start < $2 AND pid <> pg_backend_pid() ${idleOnly}`, [name, since[0].at]);
        const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND backend_start < $2', [name, since[0].at]);
        if (rows[0].n === 0) return;
        await new Promise((r) => setTimeout(r, WRITERS_POLL_MS));
      }
    });
  }

  /** Lets a tenant's database take writes again (a move rolled back): the read-only sessions are ended so that they reconnect writable. */
  async releaseWrites(location: TenantLocation): Promise<void> {
    const name = this.ownDatabase(location);
    await this.withAdminClient(this.serverOf(location), async (client) => {
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (!rowCount) return;
      await client.query(`ALTER DATABASE ${escapeIdentifier(name)} RESET default_transaction_read_only`);
      await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
    });
  }

  private ownDatabase(location: TenantLocation): string {
    if (location.storage !== 'pooled' || !location.databaseName) throw new Error('Only a tenant with a database of its own (pooled mode) has one to hold');
    return location.databaseName;
  }

  /** Removes a tenant's storage and everything in it. */
  async drop(location: TenantLocation): Promise<void> {
    await this.withAdminClient(this.serverOf(location), async (client) => {
      if (location.storage === 'pooled' && location.databaseName) {
        await client.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(location.databaseName)} WITH (FORCE)`);
      } else if (location.storage === 'schema' && location.schemaName) {
        await client.query(`DROP SCHEMA IF EXISTS ${escapeIdentifier(location.schemaName)} CASCADE`);
      }
    });
  }

  /**
   * Removes storage that a provisioning left behind when its process died midway:
   * a tenant database or schema of this deployment with no tenant row. Storage whose
   * provisioning is still running is skipped (its advisory lock is held).
   */
  async sweepOrphans(main: DataSource): Promise<number> {
    const candidates: TenantLocation[] =
      this.mode === 'pooled'
        ? await this.databasesWithoutTenant()
        : (await this.directory.schemasWithoutTenant()).map((nspname) => ({ storage: 'schema', databaseName: null, schemaName: nspname }));
    let swept = 0;
    for (const location of candidates) {
      const runner = main.createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        const [{ locked }] = await runner.query('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked', [
          this.lockKey(location),
        ]);
        if (locked) {
          const count = await this.directory.countTenantsUsingStorage(runner.manager, location);
          if (count === 0) {
            await this.drop(location);
            swept++;
            this.logger.warn(`Removed storage left by an interrupted provisioning: ${location.databaseName ?? location.schemaName}`);
          }
        }
        await runner.commitTransaction();
      } catch (err) {
        await runner.rollbackTransaction().catch(() => undefined);
        this.logger.warn(`Could not sweep ${location.databaseName ?? location.schemaName}: ${(err as Error).message}`);
      } finally {
        await runner.release();
      }
    }
    return swept;
  }

  /** This deployment's tenant databases on every reachable server that no tenant row places there (orphan sweep candidates). */
  private async databasesWithoutTenant(): Promise<TenantLocation[]> {
    const found: TenantLocation[] = [];
    for (const server of this.servers.keys()) {
      try {
        const names = await this.withAdminClient(server, async (client) => {
          const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [this.databasePrefix]);
          return rows.map((r) => r.datname);
        });
        const used = await this.directory.databasesPlacedOn(server, names);
        for (const name of names) if (!used.has(name)) found.push({ storage: 'pooled', databaseName: name, schemaName: null, databaseServer: server === MAIN_SERVER ? null : server });
      } catch (err) {
        this.logger.warn(`Could not list the tenant databases of server "${server}": ${(err as Error).message}`);
      }
    }
    return found;
  }
}
