import { DataSourceOptions } from 'typeorm';
import { MAIN_MIGRATIONS } from '../../migrations/main';
import { TENANT_MIGRATIONS } from '../../migrations/tenant';
import { DB_CONNECTION_TIMEOUT_DEFAULT_MS } from '../config/app-config';
import { ownedPoolDriver, OwnedPoolDriver } from './owned-pool';

export const MAIN_MIGRATIONS_TABLE = 'main_migrations';
export const TENANT_MIGRATIONS_TABLE = 'tenant_migrations';

/** An entity class (a table the ORM maps). */
type EntityClass = abstract new (...args: never[]) => object;

/**
 * The tables the ORM maps, as the composition root lists them (src/entities.ts): the
 * database layer knows no feature's entities.
 */
export interface EntityLists {
  /** The main database's directory. */
  readonly main: ReadonlyArray<EntityClass>;
  /** Every tenant database or schema (and the platform tenant in the main database). */
  readonly tenant: ReadonlyArray<EntityClass>;
}

export interface PoolSettings {
  max: number;
  idleTimeoutMillis: number;
  applicationName: string;
  /** How long a request waits for a connection (node-postgres' connectionTimeoutMillis; default DB_CONNECTION_TIMEOUT_DEFAULT_MS). */
  connectionTimeoutMillis?: number;
}

function base(url: string, pool: PoolSettings) {
  return {
    type: 'postgres' as const,
    url,
    synchronize: false,
    migrationsRun: false,
    // Failed queries are logged by the error mapper (with the request id), never with their parameters.
    logging: false,
    // node-postgres, with a pool the service owns (see owned-pool.ts): one per DataSource.
    driver: ownedPoolDriver(),
    extra: {
      max: pool.max,
      idleTimeoutMillis: pool.idleTimeoutMillis,
      connectionTimeoutMillis: pool.connectionTimeoutMillis ?? DB_CONNECTION_TIMEOUT_DEFAULT_MS,
      application_name: pool.applicationName,
    },
  };
}

/** The main database: the directory, and the platform tenant's tables in its public schema. */
export function mainDataSourceOptions(entities: EntityLists, url: string, pool: PoolSettings): DataSourceOptions {
  return {
    ...base(url, pool),
    entities: [...entities.main, ...entities.tenant],
    migrations: MAIN_MIGRATIONS,
    migrationsTableName: MAIN_MIGRATIONS_TABLE,
  };
}

/**
 * A tenant's database (pooled mode) or schema (schema mode). In schema mode the
 * connections come from `driver` (a SharedSchemaPool's view for that schema, see
 * shared-schema-pool.ts), which sets their search_path to the tenant schema, so
 * that plain SQL (the migrations', the repositories') lands there.
 */
export function tenantDataSourceOptions(entities: EntityLists, url: string, pool: PoolSettings, schema?: { name: string; driver: OwnedPoolDriver }): DataSourceOptions {
  const options = schema ? { ...base(url, pool), driver: schema.driver } : base(url, pool);
  return {
    ...options,
    ...(schema ? { schema: schema.name } : {}),
    entities: [...entities.tenant],
    migrations: TENANT_MIGRATIONS,
    migrationsTableName: TENANT_MIGRATIONS_TABLE,
  };
}

/** The platform tenant's tables live in the main database, tracked by the tenant migrations table. */
export function platformTenantMigrationOptions(entities: EntityLists, url: string, pool: PoolSettings): DataSourceOptions {
  return { ...tenantDataSourceOptions(entities, url, pool), entities: [...entities.main, ...entities.tenant] };
}

/** Replaces the database name in a PostgreSQL URL. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = '/' + encodeURIComponent(database);
  return u.toString();
}

export function databaseNameOf(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  return name || 'postgres';
}
