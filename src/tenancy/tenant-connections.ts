import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { tenantDataSourceOptions } from '../database/data-source-options';
import { MAIN_DATA_SOURCE } from '../database/tokens';
import { TenantEntity } from './tenant.entity';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { isDatabaseUnavailable } from '../common/errors/db-errors';
import { poolOf, TenantDb, TenantRef } from './tenant-db';
import { TenantStorageService } from './tenant-storage';

interface Entry {
  ds: Promise<DataSource>;
  lastUsed: number;
}

/**
 * Opens tenant databases lazily and keeps them bounded: each tenant gets a small
 * pool whose idle connections close after TENANT_IDLE_TIMEOUT_MS, and at most
 * TENANT_CONNECTIONS_MAX tenant pools stay open; past that the least recently
 * used idle pool is closed. The platform tenant uses the main pool.
 */
@Injectable()
export class TenantConnections implements OnApplicationShutdown {
  private readonly logger = new Logger('TenantConnections');
  private readonly open = new Map<string, Entry>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(MAIN_DATA_SOURCE) private readonly main: DataSource,
    private readonly storage: TenantStorageService,
  ) {}

  /** The database handle of a tenant, opening its pool when needed. */
  async db(tenant: TenantEntity): Promise<TenantDb> {
    const ref: TenantRef = { id: tenant.id, slug: tenant.slug, isPlatform: tenant.isPlatform, rootSectorId: tenant.rootSectorId };
    if (tenant.storage === 'main') return new TenantDb(ref, this.main.manager);
    const ds = await this.dataSource(tenant);
    return new TenantDb(ref, ds.manager);
  }

  private async dataSource(tenant: TenantEntity): Promise<DataSource> {
    const existing = this.open.get(tenant.id);
    if (existing) {
      existing.lastUsed = Date.now();
      return existing.ds;
    }
    const ds = this.connect(tenant);
    this.open.set(tenant.id, { ds, lastUsed: Date.now() });
    ds.catch(() => this.open.delete(tenant.id));
    void this.evictIfNeeded();
    return ds;
  }

  /** A fresh, initialised DataSource for a tenant's storage (the caller owns it). */
  async connect(tenant: Pick<TenantEntity, 'id' | 'storage' | 'databaseName' | 'schemaName'>, poolMax?: number): Promise<DataSource> {
    const location = { storage: tenant.storage, databaseName: tenant.databaseName, schemaName: tenant.schemaName };
    const ds = new DataSource(
      tenantDataSourceOptions(
        this.storage.urlFor(location),
        { max: poolMax ?? this.config.tenantPoolMax, idleTimeoutMillis: this.config.tenantIdleMs, applicationName: `iam-tenant` },
        tenant.schemaName ?? undefined,
      ),
    );
    try {
      await ds.initialize();
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        throw DomainError.unavailable(Reason.TENANT_DATABASE_UNAVAILABLE, 'The tenant database is unavailable; try again later.', err);
      }
      throw err;
    }
    return ds;
  }

  private async evictIfNeeded(): Promise<void> {
    if (this.open.size <= this.config.tenantConnectionsMax) return;
    const byAge = [...this.open.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [tenantId, entry] of byAge) {
      if (this.open.size <= this.config.tenantConnectionsMax) break;
      const ds = await entry.ds.catch(() => undefined);
      const pool = ds ? poolOf(ds) : undefined;
      const busy = pool ? pool.totalCount - pool.idleCount > 0 || pool.waitingCount > 0 : false;
      if (busy) continue;
      this.open.delete(tenantId);
      await ds?.destroy().catch((err: Error) => this.logger.warn(`Closing the pool of tenant ${tenantId}: ${err.message}`));
    }
  }

  /** Closes a tenant's pool, if open (before its storage is dropped). */
  async close(tenantId: string): Promise<void> {
    const entry = this.open.get(tenantId);
    if (!entry) return;
    this.open.delete(tenantId);
    const ds = await entry.ds.catch(() => undefined);
    await ds?.destroy().catch(() => undefined);
  }

  /** The connection counts of every open tenant pool (for metrics). */
  async poolStats(): Promise<Array<{ tenantId: string; total: number; idle: number; waiting: number }>> {
    const stats = [];
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
    const entries = [...this.open.values()];
    this.open.clear();
    await Promise.all(entries.map(async (e) => (await e.ds.catch(() => undefined))?.destroy().catch(() => undefined)));
  }
}
