import { EventEmitter } from 'node:events';
import { Pool, PoolClient, PoolConfig, defaults, types } from 'pg';
import { DataSource } from 'typeorm';
import { SchemaPoolView } from './shared-schema-pool';

/** What this service uses of a node-postgres pool: queries and its counters. */
export interface RawPool {
  query<T>(sql: string, params: unknown[]): Promise<{ rows: T[] }>;
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

type PoolOptions = PoolConfig & Record<string, unknown>;

/**
 * The pool TypeORM's PostgreSQL driver builds through the `driver` option (the
 * node-postgres module it uses; TypeORM calls `new driver.Pool(options)`,
 * `connect`, `end` and listens to `error`). It hands everything to a node-postgres
 * pool it owns, and can put a fresh one in that pool's place (`replace`) while the
 * DataSource stays usable: the DataSource only ever sees this object.
 */
class OwnedPool extends EventEmitter implements RawPool {
  private current: Pool;
  private readonly forwardError = (err: Error, client: PoolClient) => this.emit('error', err, client);

  constructor(private readonly options: PoolOptions) {
    super();
    this.current = this.open(options);
  }

  connect(...args: unknown[]): unknown {
    return (this.current.connect as (...a: unknown[]) => unknown)(...args);
  }

  query<T>(sql: string, params: unknown[]): Promise<{ rows: T[] }> {
    return this.current.query(sql, params) as unknown as Promise<{ rows: T[] }>;
  }

  end(callback?: (err?: Error) => void): unknown {
    return (this.current.end as (...a: unknown[]) => unknown)(...(callback ? [callback] : []));
  }

  get totalCount(): number {
    return this.current.totalCount;
  }
  get idleCount(): number {
    return this.current.idleCount;
  }
  get waitingCount(): number {
    return this.current.waitingCount;
  }

  /**
   * Puts a new pool with this one's options, changed by `overrides`, in place at
   * once (before the first await), then ends the previous one once the requests
   * queued on it have their connections (an ending node-postgres pool serves no
   * queue: they would wait until their connection timeout): its idle connections
   * close then, the ones in use when they are released. Answers once every idle
   * one is closed (node-postgres' `end` answers when the pool lets go of its
   * clients, before their connections have closed).
   */
  async replace(overrides: Partial<PoolOptions>): Promise<void> {
    const old = this.current;
    this.current = this.open({ ...this.options, ...overrides });
    // With nobody queued (always so when a pool is retired: only idle ones are), the old pool ends in the caller's turn.
    if (old.waitingCount > 0) await queueServed(old, Number(this.options.connectionTimeoutMillis) || 0);
    const closed = closedConnections(old, old.idleCount);
    await old.end();
    await closed;
  }

  private open(options: PoolOptions): Pool {
    const pool = new Pool(options);
    pool.on('error', this.forwardError);
    return pool;
  }
}

/**
 * Answers once nobody waits for a connection of the pool: each waiter got one
 * (node-postgres emits `acquire`) or gave up after `timeoutMs`, the pool's
 * connection timeout (no event then, so that is the longest this waits; 0, no
 * timeout, waits for every waiter to be served).
 */
function queueServed(pool: Pool, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      pool.off('acquire', served);
      clearTimeout(timer);
      resolve();
    };
    const served = () => {
      if (pool.waitingCount === 0) done();
    };
    const timer = timeoutMs > 0 ? setTimeout(done, timeoutMs).unref() : undefined;
    pool.on('acquire', served);
  });
}

/** Answers once `count` of the pool's connections have closed (node-postgres emits `remove` when a client's connection has ended). */
function closedConnections(pool: Pool, count: number): Promise<void> {
  if (count === 0) return Promise.resolve();
  return new Promise((resolve) => {
    let closed = 0;
    pool.on('remove', () => {
      if (++closed === count) resolve();
    });
  });
}

/** A DataSource's pool as the service handles it: queried, counted, and its connections retired (`replace`). */
export type ManagedPool = OwnedPool | SchemaPoolView;

/** The `driver` of a DataSource's options: node-postgres, whose pool is an `OwnedPool` (or a shared pool's view) kept by this object. */
export interface OwnedPoolDriver {
  Pool: new (options: PoolOptions) => ManagedPool;
  types: typeof types;
  defaults: typeof defaults;
  pool?: ManagedPool;
}

/** A fresh `driver` option (one per DataSource): TypeORM's own pg module, with the pool recorded. */
export function ownedPoolDriver(): OwnedPoolDriver {
  const driver: OwnedPoolDriver = {
    Pool: class extends OwnedPool {
      constructor(options: PoolOptions) {
        super(options);
        driver.pool = this;
      }
    },
    types,
    defaults,
  };
  return driver;
}

/**
 * A `driver` option whose pool is `view`, one schema's share of a SharedSchemaPool
 * (TypeORM's `new driver.Pool(options)` answers the view; its options are the
 * shared pool's business).
 */
export function schemaViewDriver(view: SchemaPoolView): OwnedPoolDriver {
  const driver: OwnedPoolDriver = {
    Pool: function SchemaViewPool() {
      driver.pool = view;
      return view;
    } as unknown as OwnedPoolDriver['Pool'],
    types,
    defaults,
  };
  return driver;
}

/** The pool behind a DataSource built with `ownedPoolDriver()` or `schemaViewDriver()` (every DataSource of the service is). */
export function ownedPoolOf(dataSource: DataSource): ManagedPool {
  const pool = (dataSource.options as { driver?: Partial<OwnedPoolDriver> }).driver?.pool;
  if (!(pool instanceof OwnedPool) && !(pool instanceof SchemaPoolView)) throw new Error('This DataSource was not built with ownedPoolDriver() or schemaViewDriver(), or is not initialised');
  return pool;
}
