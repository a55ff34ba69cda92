import { DataSource, EntityManager } from 'typeorm';

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
  ) {}

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
  transaction<T>(work: (tx: TenantDb) => Promise<T>): Promise<T> {
    if (this.manager.queryRunner?.isTransactionActive) return work(this);
    return this.manager.transaction((em) => work(new TenantDb(this.tenant, em)));
  }
}

/** The rows of a TypeORM `query()` result: SELECT answers rows, UPDATE/DELETE … RETURNING answers `[rows, count]`. */
export function rowsOf<T>(result: unknown): T[] {
  if (!Array.isArray(result)) return [];
  return (result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number' ? result[0] : result) as T[];
}

/** What this service uses of a node-postgres pool: queries and its counters. */
export interface RawPool {
  query<T>(sql: string, params: unknown[]): Promise<{ rows: T[] }>;
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** The node-postgres pool behind a DataSource (TypeORM's PostgreSQL driver keeps it as `master`). */
export function poolOf(dataSource: DataSource): RawPool {
  return (dataSource.driver as unknown as { master: RawPool }).master;
}

/** The parts of a node-postgres pool `recyclePool` uses. */
interface EndablePool extends RawPool {
  options: Record<string, unknown>;
  listeners(event: 'error'): Array<(err: Error) => void>;
  on(event: 'error', listener: (err: Error) => void): unknown;
  end(): Promise<void>;
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
  return replacePool(dataSource, { maxUses: 1, allowExitOnIdle: true });
}

/** Gives a DataSource retired by `recyclePool` an ordinary pool again (its connections kept while idle). */
export function reopenPool(dataSource: DataSource): Promise<void> {
  return replacePool(dataSource, { maxUses: Infinity, allowExitOnIdle: false });
}

/**
 * Puts a new pool with the current one's options, changed by `overrides`, in its
 * place at once (before the first await), then ends the old pool.
 */
async function replacePool(dataSource: DataSource, overrides: Record<string, unknown>): Promise<void> {
  const driver = dataSource.driver as unknown as { master: EndablePool };
  const old = driver.master;
  // The descriptors keep the password, which node-postgres stores non-enumerable.
  const options = Object.defineProperties({}, Object.getOwnPropertyDescriptors(old.options)) as Record<string, unknown>;
  Object.assign(options, overrides);
  const fresh = new (old.constructor as new (options: Record<string, unknown>) => EndablePool)(options);
  for (const listener of old.listeners('error')) fresh.on('error', listener);
  driver.master = fresh;
  await old.end();
}
