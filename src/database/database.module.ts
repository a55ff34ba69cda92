import { DynamicModule, Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, DataSourceOptions } from 'typeorm';
import { isDatabaseUnavailable, sqlStateOf } from '../common/errors/db-errors';
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
 * How often the first connection to the main database is tried when the database
 * cannot be reached yet — a server still starting beside the service, or one too
 * busy to answer within the connection timeout — waiting 1 s, 2 s, 4 s between
 * tries. Anything else (a wrong password, a database that does not exist) fails the
 * start at once.
 */
const STARTUP_ATTEMPTS = 4;

async function connectMain(options: DataSourceOptions): Promise<DataSource> {
  for (let attempt = 1; ; attempt++) {
    // A DataSource whose first connection failed is not reused: each try starts from a new one.
    const ds = new DataSource(options);
    try {
      await ds.initialize();
      return ds;
    } catch (err) {
      if (attempt >= STARTUP_ATTEMPTS || !isDatabaseUnavailable(err) || sqlStateOf(err) === '3D000') throw err;
      const wait = 1000 * 2 ** (attempt - 1);
      new Logger('Database').warn(`The main database cannot be reached yet (${(err as Error).message}); trying again in ${wait / 1000} s`);
      await sleep(wait);
    }
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
          useFactory: (config: AppConfig) =>
            connectMain(mainDataSourceOptions(entities, url, { max: config.mainPoolMax, idleTimeoutMillis: 30_000, applicationName: 'iam-main', connectionTimeoutMillis: config.dbConnectionTimeoutMs })),
        },
        MainDatabaseLifecycle,
      ],
      exports: [MAIN_DATABASE_URL, MAIN_DATA_SOURCE, ENTITY_LISTS],
    };
  }
}
