import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { EntityLists, mainDataSourceOptions } from './data-source-options';
import { ENTITY_LISTS, MAIN_DATA_SOURCE, MAIN_DATABASE_URL } from './tokens';

/** Closes the main pool last (global modules shut down after the others). */
@Injectable()
class MainDatabaseLifecycle implements OnApplicationShutdown {
  constructor(@Inject(MAIN_DATA_SOURCE) private readonly main: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.main.isInitialized) await this.main.destroy();
  }
}

/**
 * The main database: its URL and DataSource, and the entity lists the composition root
 * passes in. The directory tables in it, tenant
 * storage and migrations belong to TenancyModule (src/tenancy).
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(url: string, entities: EntityLists): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        { provide: MAIN_DATABASE_URL, useValue: url },
        { provide: ENTITY_LISTS, useValue: entities },
        {
          provide: MAIN_DATA_SOURCE,
          inject: [APP_CONFIG],
          useFactory: async (config: AppConfig) => {
            const ds = new DataSource(
              mainDataSourceOptions(entities, url, { max: config.mainPoolMax, idleTimeoutMillis: 30_000, applicationName: 'iam-main' }),
            );
            await ds.initialize();
            return ds;
          },
        },
        MainDatabaseLifecycle,
      ],
      exports: [MAIN_DATABASE_URL, MAIN_DATA_SOURCE, ENTITY_LISTS],
    };
  }
}
