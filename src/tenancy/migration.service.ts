import { Inject, Injectable, Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { TENANT_SCHEMA_VERSION } from '../../migrations/tenant';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { platformTenantMigrationOptions } from '../database/data-source-options';
import { MAIN_DATA_SOURCE, MAIN_DATABASE_URL } from '../database/tokens';
import { DirectoryRepository } from './directory.repository';
import { TenantConnections } from './tenant-connections';
import { TenantStorageService } from './tenant-storage';

const MIGRATION_LOCK = 'iam-migrations';
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
      const platform = new DataSource(platformTenantMigrationOptions(this.mainUrl, { max: 1, idleTimeoutMillis: 1000, applicationName: 'iam-migrations' }));
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

  private async migrateTenants(): Promise<number> {
    await this.directory.setMainStorageSchemaVersion(TENANT_SCHEMA_VERSION);
    const behind = await this.directory.tenantsBehind(TENANT_SCHEMA_VERSION);
    let next = 0;
    const worker = async () => {
      while (next < behind.length) {
        const tenant = behind[next++];
        const ds = await this.connections.connect(tenant, 1);
        try {
          await ds.runMigrations({ transaction: 'all' });
        } finally {
          await ds.destroy();
        }
        await this.directory.setSchemaVersion(tenant.id, TENANT_SCHEMA_VERSION);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_TENANT_MIGRATIONS, behind.length) }, worker));
    return behind.length;
  }
}
