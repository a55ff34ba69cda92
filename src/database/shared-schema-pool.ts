import { EventEmitter } from 'node:events';
import { Pool, PoolClient, PoolConfig, escapeIdentifier } from 'pg';

/** A checked-out connection and the function that gives it back (with an error: the connection is closed instead). */
type Lease = [PoolClient, (err?: Error | boolean) => void];

/**
 * Schemas a connection serves before it is closed (when next given back): each
 * backend keeps the catalogue entries of every table it has touched, and nothing
 * evicts them, so a connection that went round every tenant would hold all
 * their tables' entries.
 */
export const SCHEMA_SWITCHES_MAX = 200;

/**
 * One pool of connections to a database that serves every schema-mode tenant in
 * it: PostgreSQL lets one connection switch schemas, so tenants share
 * connections instead of each opening its own (which costs the database a
 * backend's start-up on every first request of a tenant whose pool had closed).
 *
 * A connection serves one schema at a time: its `search_path` is set to the
 * schema of whoever checks it out, unless it is already that schema's (the
 * pool remembers what it last set on each connection). Nothing else is kept
 * per session on tenant connections (no session-level settings, locks or
 * prepared statements: migration locks use connections of their own), and a
 * connection is handed back only outside a transaction (TypeORM ends each one
 * before it releases), so the next tenant's `SET` is not undone by a rollback.
 * A connection given back with an error is closed, never reused.
 */
export class SharedSchemaPool {
  private readonly pool: Pool;
  private readonly paths = new WeakMap<PoolClient, string>();
  private readonly switches = new WeakMap<PoolClient, number>();

  constructor(options: PoolConfig, onError: (err: Error) => void) {
    this.pool = new Pool(options);
    this.pool.on('error', onError);
  }

  /** A connection whose search_path is `schema` (answered with its release function, to be called once: SchemaPoolView sees to it). */
  async checkout(schema: string): Promise<Lease> {
    const client = await this.pool.connect();
    if (this.paths.get(client) !== schema) {
      try {
        this.paths.delete(client);
        await client.query(`SET search_path TO ${escapeIdentifier(schema)}`);
        this.paths.set(client, schema);
        this.switches.set(client, (this.switches.get(client) ?? 0) + 1);
      } catch (err) {
        client.release(err as Error);
        throw err;
      }
    }
    const retire = (this.switches.get(client) ?? 0) >= SCHEMA_SWITCHES_MAX;
    return [client, (err) => client.release(err || retire || undefined)];
  }

  /** One schema's share of the pool, at most `leaseMax` connections at once (the `driver` pool of that tenant's DataSource). */
  view(schema: string, leaseMax: number, connectionTimeoutMillis: number): SchemaPoolView {
    return new SchemaPoolView(this, schema, leaseMax, connectionTimeoutMillis);
  }

  get totalCount(): number {
    return this.pool.totalCount;
  }
  get idleCount(): number {
    return this.pool.idleCount;
  }
  get waitingCount(): number {
    return this.pool.waitingCount;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * What a schema tenant's DataSource sees as its pool: connections of the shared
 * pool, set to the tenant's schema, at most `leaseMax` at once so one busy tenant
 * cannot take every connection (further requests wait, in order, up to the
 * connection timeout). It owns no connection, so ending or replacing it closes
 * nothing (TypeORM ends it when the DataSource is destroyed).
 *
 * TypeORM's PostgreSQL driver checks connections out with `connect(callback)`;
 * the service's own reads use `query`. The promise form of `connect` is not
 * offered: its client's `release` would bypass the lease count.
 */
export class SchemaPoolView extends EventEmitter {
  private leases = 0;
  private readonly queue: Array<{ grant: () => void; timer: NodeJS.Timeout }> = [];

  constructor(
    private readonly shared: SharedSchemaPool,
    readonly schema: string,
    private readonly leaseMax: number,
    private readonly connectionTimeoutMillis: number,
  ) {
    super();
  }

  connect(callback?: (err: Error | undefined, client?: PoolClient, release?: (err?: Error | boolean) => void) => void): undefined {
    if (typeof callback !== 'function') throw new Error('A schema pool view is checked out with a callback (as TypeORM does).');
    this.lease().then(
      ([client, release]) => callback(undefined, client, release),
      (err: Error) => callback(err),
    );
    return undefined;
  }

  async query<T>(sql: string, params: unknown[]): Promise<{ rows: T[] }> {
    const [client, release] = await this.lease();
    try {
      const result = await client.query(sql, params);
      release();
      return result as unknown as { rows: T[] };
    } catch (err) {
      // As node-postgres' own pool.query does: a connection whose query failed is not reused.
      release(err as Error);
      throw err;
    }
  }

  end(callback?: (err?: Error) => void): Promise<void> {
    callback?.();
    return Promise.resolve();
  }

  /** Nothing to retire: the connections are the shared pool's. */
  async replace(): Promise<void> {}

  get totalCount(): number {
    return this.leases;
  }
  get idleCount(): number {
    return 0;
  }
  get waitingCount(): number {
    return this.queue.length;
  }

  private async lease(): Promise<Lease> {
    await this.slot();
    let lease: Lease;
    try {
      lease = await this.shared.checkout(this.schema);
    } catch (err) {
      this.free();
      throw err;
    }
    const [client, release] = lease;
    let released = false;
    return [
      client,
      (err) => {
        if (released) return;
        released = true;
        release(err);
        this.free();
      },
    ];
  }

  private slot(): Promise<void> {
    if (this.leases < this.leaseMax) {
      this.leases++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => {
          clearTimeout(entry.timer);
          this.leases++;
          resolve();
        },
        timer: setTimeout(() => {
          this.queue.splice(this.queue.indexOf(entry), 1);
          // The message node-postgres gives for the same wait on its own pool (read as "database unavailable").
          reject(new Error('timeout exceeded when trying to connect'));
        }, this.connectionTimeoutMillis),
      };
      this.queue.push(entry);
    });
  }

  private free(): void {
    this.leases--;
    this.queue.shift()?.grant();
  }
}
