import { DynamicModule, Global, Inject, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AuthStateCache } from './auth-state-cache';
import { DirectoryChanges } from './directory-changes';
import { DirectoryRepository } from './directory.repository';
import { MigrationService } from './migration.service';
import { TenantConnections } from './tenant-connections';
import { TenantDirectory } from './tenant-directory';
import { TenantStorageService } from './tenant-storage';
import { TenantMover } from './tenant-move';

/**
 * At start, before any other module's init hooks (global modules go first):
 * brings every database up to date — or, with MIGRATE_ON_START=false, where
 * migrations are a separate step (`iam-migrate`), refuses to start on databases
 * that are behind, since serving an old schema would fail at random.
 */
@Injectable()
class SchemaOnStart implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly migrations: MigrationService,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.migrateOnStart) {
      await this.migrations.migrateAll();
      return;
    }
    const pending = await this.migrations.pending();
    const count = pending.main.length + pending.platform.length + pending.template.length + pending.tenants.length;
    if (count > 0) {
      throw new Error(
        `MIGRATE_ON_START=false and the databases are behind (main: ${pending.main.length}, platform: ${pending.platform.length}, ` +
          `template: ${pending.template.length}, tenants behind: ${pending.tenants.length}); run iam-migrate (node dist/src/cli/migrate.js) first`,
      );
    }
  }
}

const PROVIDERS = [DirectoryRepository, DirectoryChanges, AuthStateCache, TenantStorageService, TenantConnections, TenantDirectory, MigrationService, TenantMover];

/**
 * Tenancy: the sole owner of the main database's directory tables (`tenants`,
 * `signing_keys`, `sector_directory`), tenant storage and per-tenant database
 * handles, and the migrations. Other modules read and write the directory only
 * through TenantDirectory and DirectoryRepository. Needs DatabaseModule (the main
 * DataSource and URL) and ConfigModule. `forRoot()` also takes care of the schema
 * at start; `forMaintenance()` leaves it to the command that runs (migrate, status).
 */
@Global()
@Module({})
export class TenancyModule {
  static forRoot(): DynamicModule {
    return { module: TenancyModule, providers: [...PROVIDERS, SchemaOnStart], exports: PROVIDERS };
  }

  static forMaintenance(): DynamicModule {
    // Commands serve no credentials: no authorization-state cache (nor its listener).
    const providers = PROVIDERS.filter((p) => p !== AuthStateCache);
    return { module: TenancyModule, providers, exports: providers };
  }
}
