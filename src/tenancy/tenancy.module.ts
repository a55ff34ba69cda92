import { Global, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { DirectoryChanges } from './directory-changes';
import { DirectoryRepository } from './directory.repository';
import { MigrationService } from './migration.service';
import { TenantConnections } from './tenant-connections';
import { TenantDirectory } from './tenant-directory';
import { TenantStorageService } from './tenant-storage';

/** Brings every database up to date when the module starts, before any other module's init hooks (global modules go first). */
@Injectable()
class MigrateOnStart implements OnModuleInit {
  constructor(private readonly migrations: MigrationService) {}

  onModuleInit(): Promise<void> {
    return this.migrations.migrateAll();
  }
}

/**
 * Tenancy: the sole owner of the main database's directory tables (`tenants`,
 * `signing_keys`, `sector_directory`), tenant storage and per-tenant database
 * handles, and the migrations. Other modules read and write the directory only
 * through TenantDirectory and DirectoryRepository. Needs DatabaseModule (the main
 * DataSource and URL) and ConfigModule.
 */
@Global()
@Module({
  providers: [DirectoryRepository, DirectoryChanges, TenantStorageService, TenantConnections, TenantDirectory, MigrationService, MigrateOnStart],
  exports: [DirectoryRepository, DirectoryChanges, TenantStorageService, TenantConnections, TenantDirectory, MigrationService],
})
export class TenancyModule {}
