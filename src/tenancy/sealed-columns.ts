import { EntityManager } from 'typeorm';
import { rowsOf } from './tenant-db';

/**
 * A column holding values sealed by SecretBox: where it lives, how its rows are
 * named, and the purpose the values were sealed for. The re-seal command
 * (`src/cli/reseal-secrets.ts`) walks a list of these.
 */
export interface SealedColumn {
  /** `main`: the main database (the directory); `tenant`: every tenant's own storage. */
  scope: 'main' | 'tenant';
  table: string;
  idColumn: string;
  column: string;
  /** The SecretBox purpose the owning module seals this column's values with. */
  purpose: string;
}

export interface SealedValue {
  id: string;
  sealed: string;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function quoted(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`Not a plain SQL identifier: "${name}"`);
  return `"${name}"`;
}

/**
 * Storage-level access to one sealed column in one database (or tenant schema),
 * for maintenance that treats the values as opaque ciphertext — re-sealing them
 * under the newest master key. It reads and replaces that one column and nothing
 * else; what the values mean stays with the owning module. Generic on purpose:
 * every sealed column needs the same three statements (a keyset page, a
 * conditional replace, a count), so a new sealed column is one more `SealedColumn`
 * entry instead of new repository methods in each owning module (see
 * docs/adr/0007-sealed-secrets-and-master-key-rotation.md).
 */
export class SealedColumns {
  private readonly table: string;
  private readonly id: string;
  private readonly column: string;

  constructor(
    private readonly manager: EntityManager,
    readonly target: SealedColumn,
  ) {
    this.table = quoted(target.table);
    this.id = quoted(target.idColumn);
    this.column = quoted(target.column);
  }

  /** `table.column`, for messages. */
  get name(): string {
    return `${this.target.table}.${this.target.column}`;
  }

  /** Up to `limit` non-null sealed values with an id after `afterId` (none: from the start), in id order. */
  async page(afterId: string | undefined, limit: number): Promise<SealedValue[]> {
    const select = `SELECT ${this.id}::text AS id, ${this.column} AS sealed FROM ${this.table} WHERE ${this.column} IS NOT NULL`;
    const rows =
      afterId === undefined
        ? await this.manager.query(`${select} ORDER BY ${this.id} LIMIT $1`, [limit])
        : await this.manager.query(`${select} AND ${this.id} > $1 ORDER BY ${this.id} LIMIT $2`, [afterId, limit]);
    return rowsOf<SealedValue>(rows);
  }

  /**
   * Replaces one row's value with `next`, only if it is still `expected` (one
   * conditional UPDATE: a concurrent change is never overwritten). False when the
   * row changed or is gone.
   */
  async replace(id: string, expected: string, next: string): Promise<boolean> {
    const rows = rowsOf(
      await this.manager.query(`UPDATE ${this.table} SET ${this.column} = $3 WHERE ${this.id} = $1 AND ${this.column} = $2 RETURNING 1 AS done`, [
        id,
        expected,
        next,
      ]),
    );
    return rows.length > 0;
  }

  /** One row's value as stored now (null: none, or the row is gone). */
  async current(id: string): Promise<string | null> {
    const [row] = rowsOf<{ sealed: string | null }>(await this.manager.query(`SELECT ${this.column} AS sealed FROM ${this.table} WHERE ${this.id} = $1`, [id]));
    return row?.sealed ?? null;
  }

  /** How many non-null values do not start with `prefix` (e.g. `v2.<newest kid>.`: not yet under the newest key). */
  async countWithoutPrefix(prefix: string): Promise<number> {
    const [row] = rowsOf<{ n: number }>(
      await this.manager.query(`SELECT count(*)::int AS n FROM ${this.table} WHERE ${this.column} IS NOT NULL AND NOT starts_with(${this.column}, $1)`, [prefix]),
    );
    return row?.n ?? 0;
  }

  /** Runs `work` in one transaction of this database, with the same column. */
  transaction<T>(work: (tx: SealedColumns) => Promise<T>): Promise<T> {
    return this.manager.transaction((em) => work(new SealedColumns(em, this.target)));
  }
}
