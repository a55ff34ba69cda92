import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { TenantStorageService } from '../tenancy/tenant-storage';
import { mainDataSourceOptions } from './data-source-options';
import { MigrationService } from './migration.service';
import { MAIN_DATA_SOURCE, MAIN_DATABASE_URL } from './tokens';

/** Runs the migrations when the module starts and closes the main pool last. */
@Injectable()
class MainDatabaseLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(MAIN_DATA_SOURCE) private readonly main: DataSource,
    private readonly migrations: MigrationService,
  ) {}

  onModuleInit(): Promise<void> {
    return this.migrations.migrateAll();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.main.isInitialized) await this.main.destroy();
  }
}

/** The main database, the tenant directory and the per-tenant database handles. */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(url: string): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        { provide: MAIN_DATABASE_URL, useValue: url },
        {
          provide: MAIN_DATA_SOURCE,
          inject: [APP_CONFIG],
          useFactory: async (config: AppConfig) => {
            const ds = new DataSource(
              mainDataSourceOptions(url, { max: config.mainPoolMax, idleTimeoutMillis: 30_000, applicationName: 'iam-main' }),
            );
            await ds.initialize();
            return ds;
          },
        },
        TenantStorageService,
        TenantConnections,
        TenantDirectory,
        MigrationService,
        MainDatabaseLifecycle,
      ],
      exports: [MAIN_DATABASE_URL, MAIN_DATA_SOURCE, TenantStorageService, TenantConnections, TenantDirectory, MigrationService],
    };
  }
}
