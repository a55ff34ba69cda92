import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { tenantDataSourceOptions, EntityLists } from '../database/data-source-options';
import { schemaViewDriver } from '../database/owned-pool';
import { SharedSchemaPool } from '../database/shared-schema-pool';
import { MAIN_DATA_SOURCE, ENTITY_LISTS } from '../database/tokens';
import { TENANT_SCHEMA_VERSION } from '../../migrations/tenant';
import { DirectoryRepository } from './directory.repository';
import { TenantEntity } from './tenant.entity';
import { DomainError } from '../common/errors/domain-error';
import { DATABASE_RETRY_AFTER_SECONDS } from '../common/errors/error-mapper';
import { Reason } from '../common/errors/error-codes';
import { isDatabaseUnavailable } from '../common/errors/db-errors';
import { migrateUnderLock } from './tenant-db';
import { poolOf, recyclePool, reopenPool, TenantDb, TenantRef } from './tenant-db';
import { TenantStorageService } from './tenant-storage';

const TENANT_APPLICATION = 'iam-tenant';
/** The longest a pool about to open waits for a retired pool's connections to close (a stuck close never holds up another tenant). */
const ROOM_WAIT_MS = 1000;

interface Entry {
  ds: Promise<DataSource>;
  /** The server the pool connects to (a tenant that moved gets a new pool). */
  server: string | null;
  /** The DataSource once `ds` has settled (eviction only considers these). */
  ready?: DataSource;
  lastUsed: number;
}

/**
 * Opens tenant databases lazily and keeps them bounded: each tenant gets a small
 * pool whose idle connections close after TENANT_IDLE_TIMEOUT_MS, and at most
 * TENANT_CONNECTIONS_MAX tenant pools stay open; past that the least recently
 * used idle pool is closed. The platform tenant uses the main pool. Schema-mode
 * tenants' "pools" are shares of one pool per database (SharedSchemaPool): a
 * connection moves from schema to schema, so a tenant whose share was closed
 * costs a `SET search_path`, not a new connection.
 *
 * Eviction never breaks a handle already given out: a request may hold a tenant's
 * `TenantDb` between two queries while its pool is evicted. The evicted pool is
 * ended (its idle connections close at once, the ones in use when released) and
 * its DataSource gets a fresh, empty pool, so such a late query opens one
 * connection, closed as soon as it is released. Eviction runs synchronously, so
 * two evictions cannot pick the same pool.
 *
 * An evicted DataSource is parked (at most TENANT_CONNECTIONS_MAX of them, least
 * recently evicted dropped first): when its tenant comes back it gets an ordinary
 * pool again instead of a new DataSource, so reopening costs a connection, not
 * the ORM's metadata and start-up queries.
 *
 * Room is made before a pool opens, not after: a tenant whose pool is closed while
 * TENANT_CONNECTIONS_MAX are open first retires the least recently used idle one and
 * waits (at most ROOM_WAIT_MS) until its connections have closed, so the server never
 * holds more of this instance's connections than the budget, even for the moment a
 * backend takes to exit. Only when every open pool is busy does the new one open
 * beside them, and the cap is restored as soon as one goes idle.
 */
@Injectable()
export class TenantConnections implements OnApplicationShutdown {
  private readonly logger = new Logger('TenantConnections');
  private readonly open = new Map<string, Entry>();
  /** Evicted DataSources (no idle connections), oldest first, kept for a quick reopen. */
  private readonly parked = new Map<string, { ds: DataSource; server: string | null }>();
  /** Schema-mode tenants' connections: one pool per database URL, shared by every schema in it (see SharedSchemaPool). */
  private readonly schemaPools = new Map<string, SharedSchemaPool>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ENTITY_LISTS) private readonly entities: EntityLists,
    @Inject(MAIN_DATA_SOURCE) private readonly main: DataSource,
    private readonly storage: TenantStorageService,
    private readonly directory: DirectoryRepository,
  ) {}

  /** The database handle of a tenant, opening its pool when needed. */
  async db(tenant: TenantEntity): Promise<TenantDb> {
    const ref: TenantRef = { id: tenant.id, slug: tenant.slug, isPlatform: tenant.isPlatform, rootSectorId: tenant.rootSectorId };
    if (tenant.storage === 'main') return new TenantDb(ref, this.main.manager);
    const ds = await this.dataSource(tenant);
    return new TenantDb(ref, ds.manager);
  }

  private async dataSource(tenant: TenantEntity): Promise<DataSource> {
    const server = tenant.databaseServer ?? null;
    const existing = this.open.get(tenant.id);
    if (existing?.server === server) {
      existing.lastUsed = Date.now();
      return existing.ds;
    }
    // A pool (open or parked) of the server the tenant was on before a move goes.
    if (existing || (this.parked.has(tenant.id) && this.parked.get(tenant.id)?.server !== server)) void this.close(tenant.id);
    const parked = this.parked.get(tenant.id)?.ds;
    this.parked.delete(tenant.id);
    const room = this.makeRoom();
    const ds = room.then(() => (parked ? this.reopen(tenant.id, parked) : this.connect(tenant).then((fresh) => this.upToDate(tenant, fresh))));
    const entry: Entry = { ds, server, lastUsed: Date.now() };
    this.open.set(tenant.id, entry);
    entry.ds.then(
      (ds) => {
        entry.ready = ds;
        this.evictIfNeeded();
      },
      () => {
        if (this.open.get(tenant.id) === entry) this.open.delete(tenant.id);
      },
    );
    return entry.ds;
  }

  private async reopen(tenantId: string, ds: DataSource): Promise<DataSource> {
    // The swap happens at once; the retired pool ends when its last late query has.
    reopenPool(ds).catch((err: Error) => this.logger.warn(`Closing the retired pool of tenant ${tenantId}: ${err.message}`));
    return ds;
  }

  /**
   * A freshly opened tenant's DataSource once its schema is current: a tenant the start
   * could not migrate (its server was down then) is migrated on first use, before any
   * request reaches its tables.
   */
  private async upToDate(tenant: TenantEntity, ds: DataSource): Promise<DataSource> {
    if (tenant.schemaVersion === TENANT_SCHEMA_VERSION) return ds;
    try {
      await this.bringUpToDate(tenant, ds);
      return ds;
    } catch (err) {
      await ds.destroy().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Applies the tenant migrations a tenant's database lacks and records its schema
   * version (on `tenant` too), under the tenant's migration lock (migrateUnderLock).
   */
  async bringUpToDate(tenant: Pick<TenantEntity, 'id' | 'schemaVersion' | 'storage' | 'databaseName' | 'schemaName' | 'databaseServer'>, ds: DataSource): Promise<void> {
    const ownDatabase = tenant.storage === 'pooled';
    await migrateUnderLock(ds, this.storage.sessionUrlFor(tenant), tenant.schemaName ?? tenant.databaseName ?? tenant.id, ownDatabase ? this.storage.relayUrl : undefined);
    await this.directory.setSchemaVersion(tenant.id, TENANT_SCHEMA_VERSION);
    tenant.schemaVersion = TENANT_SCHEMA_VERSION;
  }

  /**
   * A fresh, initialised DataSource for a tenant's storage (the caller owns it): a
   * pool of its own for a database, a share of at most `poolMax` connections of the
   * database's shared pool for a schema.
   */
  async connect(tenant: Pick<TenantEntity, 'id' | 'storage' | 'databaseName' | 'schemaName' | 'databaseServer'>, poolMax?: number): Promise<DataSource> {
    const location = { storage: tenant.storage, databaseName: tenant.databaseName, schemaName: tenant.schemaName, databaseServer: tenant.databaseServer };
    const url = this.storage.urlFor(location);
    const max = poolMax ?? this.config.tenantPoolMax;
    const schema = tenant.schemaName ? { name: tenant.schemaName, driver: schemaViewDriver(this.schemaPool(url).view(tenant.schemaName, max, this.config.dbConnectionTimeoutMs)) } : undefined;
    const ds = new DataSource(tenantDataSourceOptions(this.entities, url, { max, idleTimeoutMillis: this.config.tenantIdleMs, applicationName: TENANT_APPLICATION, connectionTimeoutMillis: this.config.dbConnectionTimeoutMs }, schema));
    try {
      await ds.initialize();
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        throw DomainError.unavailable(Reason.TENANT_DATABASE_UNAVAILABLE, 'The tenant database is unavailable; try again later.', err, DATABASE_RETRY_AFTER_SECONDS);
      }
      throw err;
    }
    return ds;
  }

  /**
   * The pool shared by the schema tenants of the database at `url`, as many
   * connections at most as the tenant pools could hold together
   * (TENANT_CONNECTIONS_MAX × TENANT_POOL_MAX), so the connection budget is the
   * same in both modes; idle ones close after TENANT_IDLE_TIMEOUT_MS.
   */
  private schemaPool(url: string): SharedSchemaPool {
    let pool = this.schemaPools.get(url);
    if (!pool) {
      pool = new SharedSchemaPool(
        {
          connectionString: url,
          max: this.config.tenantConnectionsMax * this.config.tenantPoolMax,
          idleTimeoutMillis: this.config.tenantIdleMs,
          connectionTimeoutMillis: this.config.dbConnectionTimeoutMs,
          application_name: TENANT_APPLICATION,
        },
        (err) => this.logger.warn(`A shared schema connection failed while idle: ${err.message}`),
      );
      this.schemaPools.set(url, pool);
    }
    return pool;
  }

  /**
   * Retires least recently used idle pools until one more fits under the cap, and
   * answers once their connections have closed (or ROOM_WAIT_MS passed). Runs
   * synchronously up to that wait, so two openings never pick the same pool.
   */
  private makeRoom(): Promise<void> {
    const closing: Array<Promise<void>> = [];
    while (this.open.size >= this.config.tenantConnectionsMax) {
      const retired = this.retireLeastRecentlyUsed();
      if (!retired) break;
      closing.push(retired);
    }
    if (closing.length === 0) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ROOM_WAIT_MS)));
    return Promise.race([Promise.all(closing).then(() => undefined), waited]).finally(() => clearTimeout(timer));
  }

  /**
   * Past the cap (a pool that opened while every other was busy), retires the least
   * recently used pools that have no connection in use and nobody waiting. Pools
   * still connecting, or busy, stay (the cap is then exceeded until they settle or
   * go idle; the next open retries).
   */
  private evictIfNeeded(): void {
    while (this.open.size > this.config.tenantConnectionsMax && this.retireLeastRecentlyUsed());
  }

  /**
   * Retires the least recently used open pool that is ready, has no connection in
   * use and nobody waiting (its DataSource is parked); answers when its connections
   * have closed, or undefined when no pool can go.
   */
  private retireLeastRecentlyUsed(): Promise<void> | undefined {
    let victim: [string, DataSource, string | null] | undefined;
    let oldest = Infinity;
    for (const [tenantId, entry] of this.open) {
      if (!entry.ready || entry.lastUsed >= oldest) continue;
      const pool = poolOf(entry.ready);
      if (pool.totalCount - pool.idleCount > 0 || pool.waitingCount > 0) continue;
      victim = [tenantId, entry.ready, entry.server];
      oldest = entry.lastUsed;
    }
    if (!victim) return undefined;
    const [tenantId, ds, server] = victim;
    this.open.delete(tenantId);
    this.parked.set(tenantId, { ds, server });
    // A dropped DataSource holds no idle connection: late queries still work through it, then it is garbage.
    if (this.parked.size > this.config.tenantConnectionsMax) this.parked.delete(this.parked.keys().next().value as string);
    return recyclePool(ds).catch((err: Error) => this.logger.warn(`Closing the pool of tenant ${tenantId}: ${err.message}`));
  }

  /** Closes a tenant's pool, if open (before its storage is dropped). */
  async close(tenantId: string): Promise<void> {
    const parked = this.parked.get(tenantId)?.ds;
    this.parked.delete(tenantId);
    const entry = this.open.get(tenantId);
    this.open.delete(tenantId);
    const ds = parked ?? (await entry?.ds.catch(() => undefined));
    await ds?.destroy().catch(() => undefined);
  }

  /** The connection counts of every open tenant pool (a schema tenant's: its share of the shared pool), and of the shared schema pool (as `schemas`), for metrics. */
  async poolStats(): Promise<Array<{ tenantId: string; total: number; idle: number; waiting: number }>> {
    const stats = [];
    for (const pool of this.schemaPools.values()) stats.push({ tenantId: 'schemas', total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
    for (const [tenantId, entry] of this.open) {
      const ds = await entry.ds.catch(() => undefined);
      if (!ds) continue;
      const pool = poolOf(ds);
      stats.push({ tenantId, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
    }
    return stats;
  }

  /** How many tenant pools are open now (for tests and metrics). */
  get openCount(): number {
    return this.open.size;
  }

  async onApplicationShutdown(): Promise<void> {
    const entries = [...this.open.values()].map((e) => e.ds.catch(() => undefined));
    const parked = [...this.parked.values()].map((p) => p.ds);
    this.open.clear();
    this.parked.clear();
    await Promise.all([...entries, ...parked].map(async (ds) => (await ds)?.destroy().catch(() => undefined)));
    const shared = [...this.schemaPools.values()];
    this.schemaPools.clear();
    await Promise.all(shared.map((pool) => pool.end().catch(() => undefined)));
  }
}
