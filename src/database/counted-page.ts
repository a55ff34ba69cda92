/** Runs one SQL statement with `$n` parameters and answers its rows. */
export type RowQuery = <T>(sql: string, params: unknown[]) => Promise<T[]>;

/** One page of a listing: what to select, from where, in which order. */
export interface CountedPageSpec {
  /** The SELECT list of an item. */
  select: string;
  /** The FROM clause, with any alias the other parts use. */
  from: string;
  /** A WHERE clause over `params` (`$1`…), or empty. */
  where: string;
  params: unknown[];
  /** A total order (end it with a unique column), so pages never overlap. */
  orderBy: string;
  limit: number;
  offset: number;
}

/**
 * A page of rows and the exact number of rows matching, in one statement
 * (`count(*) OVER ()` beside the page, in the same snapshot). A page past the end
 * has no row to carry the count: only then is it counted apart.
 */
export async function countedPage<T>(query: RowQuery, spec: CountedPageSpec): Promise<{ items: T[]; total: number }> {
  const n = spec.params.length;
  const rows = await query<T & { total: string | number }>(
    `SELECT ${spec.select}, count(*) OVER () AS total FROM ${spec.from} ${spec.where} ORDER BY ${spec.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...spec.params, spec.limit, spec.offset],
  );
  if (rows.length > 0) return { items: rows.map(({ total: _total, ...item }) => item as unknown as T), total: Number(rows[0].total) };
  if (spec.offset === 0) return { items: [], total: 0 };
  const [{ n: total }] = await query<{ n: string | number }>(`SELECT count(*) AS n FROM ${spec.from} ${spec.where}`, spec.params);
  return { items: [], total: Number(total) };
}
