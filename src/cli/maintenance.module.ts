import { ENTITIES } from '../entities';
import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { TenancyModule } from '../tenancy/tenancy.module';

/**
 * The smallest context the schema commands need: configuration, the main
 * database and tenancy (storage, directory, migrations) — nothing that reads
 * tables at start, so it boots on databases that are not migrated yet.
 */
@Module({})
export class MaintenanceModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return { module: MaintenanceModule, imports: [ConfigModule.forRoot(config), DatabaseModule.forRoot(databaseUrl, ENTITIES), TenancyModule.forMaintenance()] };
  }
}
