import { Client, escapeIdentifier } from 'pg';

/** Rows per batch read from the source and written to the target. */
const BATCH_ROWS = 1_000;
/** TypeORM's own bookkeeping: the target, cloned from the same template, already has it. */
const SKIPPED_TABLES = new Set(['migrations']);


interface Table {
  name: string;
  /** Columns written (generated columns are computed again on the target). */
  columns: string[];
}

/** How many rows of each table were copied. */
export type CopyCounts = Record<string, number>;

/**
 * Copies every row of a tenant database's `public` tables into another database with
 * the same schema (a clone of the same template), exactly: rows travel as JSON text
 * (`json_agg` on the source, `json_populate_recordset` on the target), so every type
 * keeps its text form — microseconds, bytea, arrays, jsonb. The source is read in one
 * repeatable-read snapshot; the target is written in one transaction (emptied first,
 * its own triggers off, identity values kept, sequences set to the source's, row
 * counts checked before the commit), so an interrupted copy leaves nothing half
 * written and may simply run again. The source must not take writes meanwhile.
 */
export async function copyDatabase(source: Client, target: Client): Promise<CopyCounts> {
  const tables = await tablesInOrder(source);
  const counts: CopyCounts = {};
  await source.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  await target.query('BEGIN');
  try {
    if (tables.length) await target.query(`TRUNCATE ${tables.map((t) => escapeIdentifier(t.name)).join(', ')} CASCADE`);
    for (const table of tables) {
      const name = escapeIdentifier(table.name);
      const columns = table.columns.map(escapeIdentifier).join(', ');
      await target.query(`ALTER TABLE ${name} DISABLE TRIGGER USER`);
      let after = '(0,0)';
      let copied = 0;
      for (;;) {
        const { rows } = await source.query<{ batch: string | null; last: string | null; n: number }>(
          `SELECT json_agg(r)::text AS batch, max(r.ctid)::text AS last, count(*)::int AS n
             FROM (SELECT ctid, ${columns} FROM ${name} WHERE ctid > $1::tid ORDER BY ctid LIMIT ${BATCH_ROWS}) r`,
          [after],
        );
        const { batch, last, n } = rows[0];
        if (!batch || !last || n === 0) break;
        await target.query(`INSERT INTO ${name} (${columns}) OVERRIDING SYSTEM VALUE SELECT ${columns} FROM json_populate_recordset(NULL::${name}, $1::json)`, [batch]);
        copied += n;
        after = last;
      }
      await target.query(`ALTER TABLE ${name} ENABLE TRIGGER USER`);
      const [{ n: there }] = (await target.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${name}`)).rows;
      if (there !== copied) throw new Error(`${table.name}: ${copied} rows read, ${there} on the target`);
      counts[table.name] = copied;
    }
    const { rows: sequences } = await source.query<{ name: string; last_value: string | null }>(
      `SELECT quote_ident(sequencename) AS name, last_value::text FROM pg_sequences WHERE schemaname = 'public'`,
    );
    for (const seq of sequences) {
      if (seq.last_value === null) await target.query(`SELECT setval($1::regclass, 1, false)`, [seq.name]);
      else await target.query(`SELECT setval($1::regclass, $2::bigint, true)`, [seq.name, seq.last_value]);
    }
    await target.query('COMMIT');
  } catch (err) {
    await target.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await source.query('ROLLBACK').catch(() => undefined);
  }
  return counts;
}

/** The source's tables, each after the tables its foreign keys point at. */
async function tablesInOrder(source: Client): Promise<Table[]> {
  const { rows } = await source.query<{ name: string; columns: string[]; refs: string[] | null }>(`
    SELECT c.relname AS name,
           array_agg(a.attname::text ORDER BY a.attnum) AS columns,
           (SELECT array_agg(DISTINCT r.relname::text) FROM pg_constraint f JOIN pg_class r ON r.oid = f.confrelid
             WHERE f.conrelid = c.oid AND f.contype = 'f' AND f.confrelid <> c.oid) AS refs
      FROM pg_class c
      JOIN pg_namespace ns ON ns.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     WHERE ns.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
     GROUP BY c.oid, c.relname
     ORDER BY c.relname`);
  const byName = new Map(rows.filter((r) => !SKIPPED_TABLES.has(r.name)).map((r) => [r.name, r]));
  const ordered: Table[] = [];
  const placed = new Set<string>();
  const place = (name: string, path: Set<string>) => {
    const row = byName.get(name);
    if (!row || placed.has(name) || path.has(name)) return;
    path.add(name);
    for (const ref of row.refs ?? []) place(ref, path);
    placed.add(name);
    ordered.push({ name, columns: row.columns });
  };
  for (const name of byName.keys()) place(name, new Set());
  return ordered;
}
