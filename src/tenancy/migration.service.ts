import { Inject, Injectable, Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { MAIN_MIGRATIONS } from '../../migrations/main';
import { TENANT_MIGRATIONS, TENANT_SCHEMA_VERSION } from '../../migrations/tenant';
import { APP_CONFIG, AppConfig, MAIN_SERVER } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-codes';
import { MAIN_MIGRATIONS_TABLE, platformTenantMigrationOptions, TENANT_MIGRATIONS_TABLE, withDatabase, EntityLists } from '../database/data-source-options';
import { MAIN_DATA_SOURCE, MAIN_DATABASE_URL, ENTITY_LISTS } from '../database/tokens';
import { DirectoryRepository } from './directory.repository';
import { TenantConnections } from './tenant-connections';
import { TenantStorageService } from './tenant-storage';

const MIGRATION_LOCK = 'iam-migrations';

/** Migrations not applied yet, per database: what `iam-migration-status` prints. */
export interface PendingMigrations {
  main: string[];
  /** The platform tenant's tables (in the main database). */
  platform: string[];
  /** The pooled-mode template new tenants are cloned from (empty in schema mode). */
  template: string[];
  tenants: Array<{ slug: string; pending: string[] }>;
}

const names = (migrations: ReadonlyArray<new () => { name?: string }>) => migrations.map((m) => new m().name ?? m.name);

/** The migrations of `all` that `executed` (applied names) lacks, in order. */
function notApplied(all: string[], executed: string[]): string[] {
  const done = new Set(executed);
  return all.filter((n) => !done.has(n));
}
const PARALLEL_TENANT_MIGRATIONS = 4;

/**
 * Brings every database up to date: the main directory, the platform tenant's
 * tables, the pooled-mode template and each tenant whose recorded schema version
 * is behind. Runs at start and from `npm run migration:run`, one process at a
 * time (advisory lock), and sweeps storage that an interrupted provisioning left.
 */
@Injectable()
export class MigrationService {
  private readonly logger = new Logger('Migrations');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ENTITY_LISTS) private readonly entities: EntityLists,
    @Inject(MAIN_DATABASE_URL) private readonly mainUrl: string,
    @Inject(MAIN_DATA_SOURCE) private readonly main: DataSource,
    private readonly storage: TenantStorageService,
    private readonly connections: TenantConnections,
    private readonly directory: DirectoryRepository,
  ) {}

  async migrateAll(): Promise<void> {
    const lock = new Client({ connectionString: this.mainUrl, application_name: 'iam-migrations' });
    await lock.connect();
    try {
      await lock.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [MIGRATION_LOCK]);
      const applied = await this.main.runMigrations({ transaction: 'all' });
      const platform = new DataSource(platformTenantMigrationOptions(this.entities, this.mainUrl, { max: 1, idleTimeoutMillis: 1000, applicationName: 'iam-migrations' }));
      await platform.initialize();
      try {
        applied.push(...(await platform.runMigrations({ transaction: 'all' })));
      } finally {
        await platform.destroy();
      }
      await this.storage.prepareTemplate();
      const tenantsMigrated = await this.migrateTenants();
      await this.copySectorOrigins();
      await this.storage.sweepOrphans(this.main);
      if (applied.length || tenantsMigrated) {
        this.logger.log(`Applied ${applied.length} migration(s) to the main database; brought ${tenantsMigrated} tenant(s) up to date`);
      }
    } finally {
      await lock.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [MIGRATION_LOCK]).catch(() => undefined);
      await lock.end().catch(() => undefined);
    }
  }

  /**
   * Copies the allowed origins of sectors whose routing entries predate the
   * directory keeping them (a one-time step per such tenant).
   */
  private async copySectorOrigins(): Promise<void> {
    for (const tenant of await this.directory.tenantsWithUncopiedOrigins()) {
      const db = await this.connections.db(tenant);
      const sectors: Array<{ id: string; allowed_origins: string[] }> = await db.manager.query('SELECT id, allowed_origins FROM sectors');
      for (const s of sectors) await this.directory.setSectorOrigins(s.id, s.allowed_origins);
    }
  }

  /** What is not applied yet, without applying anything (read-only). */
  async pending(): Promise<PendingMigrations> {
    const mainNames = names(MAIN_MIGRATIONS);
    const tenantNames = names(TENANT_MIGRATIONS);
    const applied = async (client: { query(sql: string): Promise<{ rows: Array<{ name: string }> }> }, table: string) => {
      try {
        return (await client.query(`SELECT name FROM ${table}`)).rows.map((r) => r.name);
      } catch {
        return []; // no migrations table yet: nothing applied
      }
    };
    const query = (sql: string) => this.main.query(sql).then((rows: Array<{ name: string }>) => ({ rows }));
    const result: PendingMigrations = {
      main: notApplied(mainNames, await applied({ query }, MAIN_MIGRATIONS_TABLE)),
      platform: notApplied(tenantNames, await applied({ query }, TENANT_MIGRATIONS_TABLE)),
      template: [],
      tenants: [],
    };
    if (this.storage.mode === 'pooled') {
      const template = new Client({ connectionString: withDatabase(this.mainUrl, this.storage.templateDatabase), application_name: 'iam-migrations' });
      try {
        await template.connect();
        result.template = notApplied(tenantNames, await applied(template, TENANT_MIGRATIONS_TABLE));
      } catch {
        result.template = tenantNames; // the template does not exist yet
      } finally {
        await template.end().catch(() => undefined);
      }
    }
    if (result.main.length === 0) {
      for (const tenant of await this.directory.tenantsBehind(TENANT_SCHEMA_VERSION)) {
        const at = tenantNames.indexOf(tenant.schemaVersion ?? '');
        result.tenants.push({ slug: tenant.slug, pending: tenantNames.slice(at + 1) });
      }
    }
    return result;
  }

  private async migrateTenants(): Promise<number> {
    await this.directory.setMainStorageSchemaVersion(TENANT_SCHEMA_VERSION);
    const behind = await this.directory.tenantsBehind(TENANT_SCHEMA_VERSION);
    let next = 0;
    let migrated = 0;
    const worker = async () => {
      while (next < behind.length) {
        const tenant = behind[next++];
        let ds: DataSource;
        try {
          ds = await this.connections.connect(tenant, 1);
        } catch (err) {
          // A tenant on another server that is down now: migrated on its first use once the server is back.
          if (this.storage.serverOf(tenant) === MAIN_SERVER || !isUnavailable(err)) throw err;
          this.logger.warn(`Tenant ${tenant.slug} is behind but its database server "${this.storage.serverOf(tenant)}" is unreachable; it is migrated on first use`);
          continue;
        }
        try {
          await this.connections.bringUpToDate(tenant, ds);
          migrated++;
        } finally {
          await ds.destroy();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_TENANT_MIGRATIONS, behind.length) }, worker));
    return migrated;
  }
}

/** Whether an error says a database cannot be reached (as TenantConnections reports it). */
function isUnavailable(err: unknown): boolean {
  return err instanceof DomainError && err.code === ErrorCode.UNAVAILABLE;
}
