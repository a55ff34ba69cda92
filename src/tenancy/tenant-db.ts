import { Client } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { ownedPoolOf, RawPool } from '../database/owned-pool';
import { configureRelay } from './auth-relay';

/** Each entity's SELECT list, built once from its metadata (see `TenantDb.findEntities`). */
const SELECT_LISTS = new Map<new () => object, string>();

/** What every tenant-scoped call needs to know of its tenant. */
export interface TenantRef {
  id: string;
  slug: string;
  isPlatform: boolean;
  rootSectorId: string;
}

/**
 * The database handle of one tenant: the tenant is an argument, never a global.
 * Repositories take it first; it is bound to the tenant's own database or schema,
 * so a query through it cannot see another tenant's rows.
 */
export class TenantDb {
  constructor(
    readonly tenant: TenantRef,
    readonly manager: EntityManager,
    /** On a handle made by `transaction`: what runs once that transaction committed. */
    private readonly committed?: Array<() => void>,
  ) {}

  /**
   * Runs `fn` once the work done through this handle is committed: after the
   * commit of the `transaction` that made it (never, if it rolls back), or at
   * once on a handle outside any transaction (its statements commit as they run).
   * `fn` must not throw (what throws is logged by nobody and dropped).
   */
  afterCommit(fn: () => void): void {
    if (this.committed) this.committed.push(fn);
    else runQuietly(fn);
  }

  /**
   * One read on the hot path (every authenticated request): straight on the pg
   * pool, without an ORM query runner, unless a transaction is open on this handle.
   */
  async read<T>(sql: string, params: unknown[]): Promise<T[]> {
    if (this.manager.queryRunner) return this.manager.query(sql, params);
    return (await poolOf(this.manager.connection).query<T>(sql, params)).rows;
  }

  /**
   * The rows of an entity's table matching `where` (SQL over its column names, `$n`
   * parameters), hydrated as that entity: one read straight on the pool like
   * `read`, without building an ORM query each time. The pg driver already parses
   * booleans, integers, JSON and timestamps the way the entity declares them.
   */
  async findEntities<T extends object>(entity: new () => T, where: string, params: unknown[]): Promise<T[]> {
    const meta = this.manager.connection.getMetadata(entity);
    let select = SELECT_LISTS.get(entity);
    if (select === undefined) {
      select = `SELECT ${meta.columns.map((c) => `"${c.databaseName}" AS "${c.propertyName}"`).join(', ')} FROM "${meta.tableName}"`;
      SELECT_LISTS.set(entity, select);
    }
    const rows = await this.read<Partial<T>>(`${select} WHERE ${where}`, params);
    return rows.map((row) => Object.assign(new entity(), row));
  }

  /**
   * Runs one SQL statement and answers its rows, whatever the statement (TypeORM's
   * PostgreSQL driver answers `[rows, count]` for UPDATE/DELETE … RETURNING).
   */
  async rows<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return rowsOf<T>(await this.manager.query(sql, params));
  }

  /** Runs `work` in one database transaction of this tenant. */
  async transaction<T>(work: (tx: TenantDb) => Promise<T>): Promise<T> {
    if (this.manager.queryRunner?.isTransactionActive) return work(this);
    const committed: Array<() => void> = [];
    const result = await this.manager.transaction((em) => work(new TenantDb(this.tenant, em, committed)));
    for (const fn of committed) runQuietly(fn);
    return result;
  }
}

function runQuietly(fn: () => void): void {
  try {
    fn();
  } catch {
    // afterCommit's callers log their own failures; the committed change stands.
  }
}

/** The rows of a TypeORM `query()` result: SELECT answers rows, UPDATE/DELETE … RETURNING answers `[rows, count]`. */
export function rowsOf<T>(result: unknown): T[] {
  if (!Array.isArray(result)) return [];
  return (result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number' ? result[0] : result) as T[];
}

/** The node-postgres pool behind a DataSource (the service builds every DataSource with an `OwnedPool`, see src/database/owned-pool.ts). */
export function poolOf(dataSource: DataSource): RawPool {
  return ownedPoolOf(dataSource);
}

/**
 * Closes the connections of a DataSource's pool while keeping the DataSource
 * usable: a fresh pool with the same options (and error handlers) takes the old
 * one's place, connecting only if someone still queries through this DataSource,
 * and closing each such connection as soon as it is released (so retired
 * DataSources never accumulate connections). The old pool closes its idle
 * connections now and the ones in use when they are released.
 */
export function recyclePool(dataSource: DataSource): Promise<void> {
  return ownedPoolOf(dataSource).replace({ maxUses: 1, allowExitOnIdle: true });
}

/** Gives a DataSource retired by `recyclePool` an ordinary pool again (its connections kept while idle). */
export function reopenPool(dataSource: DataSource): Promise<void> {
  return ownedPoolOf(dataSource).replace({ maxUses: Infinity, allowExitOnIdle: false });
}

/**
 * Applies a tenant database's (or a template's) pending migrations while a session
 * advisory lock on `key` is held in that database (at `url`) by a connection of its
 * own, outside `ds`'s pool: two instances, or the start and a first request, never
 * migrate one tenant at once, whatever the pool's size. With `relayUrl` (a database of
 * its own: a pooled tenant's, or a template), its change relay is then pointed at the
 * main database (configureRelay), under the same lock.
 */
export async function migrateUnderLock(ds: DataSource, url: string, key: string, relayUrl?: string): Promise<void> {
  const lock = new Client({ connectionString: url, application_name: 'iam-migrations' });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`iam-tenant-migrations:${key}`]);
    await ds.runMigrations({ transaction: 'all' });
    if (relayUrl !== undefined) await configureRelay(lock, relayUrl);
  } finally {
    // Ending the session releases the lock.
    await lock.end().catch(() => undefined);
  }
}
