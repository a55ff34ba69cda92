import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MAIN_DATA_SOURCE } from '../database/tokens';
import { AuthStateCache } from '../tenancy/auth-state-cache';
import { TenantConnections } from '../tenancy/tenant-connections';
import { poolOf } from '../tenancy/tenant-db';
import { Metrics } from './metrics.service';

/** Database pool use, read at each scrape: the main pool and every open tenant pool, how many tenant pools are open, and the authorization-state cache. */
@Injectable()
export class PoolCollectors implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly connections: TenantConnections,
    private readonly authCache: AuthStateCache,
    @Inject(MAIN_DATA_SOURCE) private readonly main: DataSource,
  ) {}

  onModuleInit(): void {
    this.metrics.gauge('iam_db_pool_connections', 'Connections of a database pool (main; schemas, the pool schema-mode tenants share; or a tenant id: in schema mode its share of that pool), by state: total, idle, waiting (requests queued for one).', ['pool', 'state'], async (set) => {
      const pools = [{ pool: 'main', ...this.counts(this.main) }, ...(await this.connections.poolStats()).map((p) => ({ pool: p.tenantId, total: p.total, idle: p.idle, waiting: p.waiting }))];
      for (const p of pools) {
        set({ pool: p.pool, state: 'total' }, p.total);
        set({ pool: p.pool, state: 'idle' }, p.idle);
        set({ pool: p.pool, state: 'waiting' }, p.waiting);
      }
    });
    this.metrics.gauge('iam_auth_cache_lookups', 'Authorization-state lookups since start, by result: hit (no query), miss (read from the database).', ['result'], (set) => {
      set({ result: 'hit' }, this.authCache.hits);
      set({ result: 'miss' }, this.authCache.misses);
    });
    this.metrics.gauge('iam_auth_cache_listeners', "Whether this instance's listener for authorization changes (one connection to the main database, for every tenant) is live: 1, or 0 while it reads through.", [], (set) =>
      set({}, this.authCache.listening),
    );
    this.metrics.gauge('iam_auth_cache_entries', 'Authorization states cached now, of all tenants (bounded by AUTH_CACHE_ENTRIES).', [], (set) => set({}, this.authCache.size));
    this.metrics.gauge('iam_tenant_pools_open', 'Tenant database pools open in this instance (bounded by TENANT_CONNECTIONS_MAX).', [], (set) => set({}, this.connections.openCount));
  }

  private counts(ds: DataSource): { total: number; idle: number; waiting: number } {
    const pool = poolOf(ds);
    return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
  }
}
