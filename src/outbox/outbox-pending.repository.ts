import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { sqlStateOf } from '../common/errors/db-errors';
import { MAIN_DATA_SOURCE } from '../database/tokens';

/**
 * A timestamp as exact text (UTC, to the microsecond): it goes from one database
 * to another, or back into a comparison, without the millisecond rounding of a Date.
 */
export type ExactTime = string;

/** SQL rendering a timestamptz expression as an ExactTime. */
export const exactTime = (expr: string): string => `to_char((${expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * A hint is only ever written for a tenant of the directory: `outbox_pending.tenant_id`
 * references it (ON DELETE CASCADE), and a write for a tenant that is gone fails
 * that check (foreign_key_violation), which means "no hint".
 */
async function unlessTenantGone(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (err) {
    if (sqlStateOf(err) !== '23503') throw err;
  }
}

/** When to look at a tenant's outbox again: when its next row is due, or after a delay on the database clock. */
export type NextLook = { at: ExactTime } | { inMs: number };

/**
 * A tenant's hint as the worker took it: its `updated_at`, null when there was
 * none, undefined when it could not be read.
 */
export type HintVersion = ExactTime | null | undefined;

/**
 * `outbox_pending` in the main database: which tenants' outboxes hold pending
 * messages and when to look at each next, so that the workers of every instance
 * find mail without opening every tenant's database. A hint is written after the
 * commit that queued a message (`touch`), taken by a worker, and afterwards set
 * to the tenant's next due row or deleted, unless a `touch` came in between (its
 * `updated_at` changed). All times are on the main database's clock.
 */
@Injectable()
export class OutboxPendingRepository {
  constructor(@Inject(MAIN_DATA_SOURCE) private readonly main: DataSource) {}

  /** A message was queued for the tenant: its hint is due now (or earlier) and its version changes. */
  async touch(tenantId: string): Promise<void> {
    await unlessTenantGone(
      this.main.query(
        `INSERT INTO outbox_pending AS p (tenant_id, due_at) VALUES ($1, now())
         ON CONFLICT (tenant_id) DO UPDATE
           SET due_at = least(p.due_at, now()), updated_at = greatest(now(), p.updated_at + interval '1 microsecond')`,
        [tenantId],
      ),
    );
  }

  /**
   * Takes up to `limit` due hints, earliest first, and pushes each `leaseMs` ahead:
   * other instances' polls pass them by while this one works on those tenants, and
   * take them again if it dies. SKIP LOCKED: two polls never take the same hint.
   */
  async claimDue(limit: number, leaseMs: number): Promise<string[]> {
    // For an UPDATE, TypeORM's postgres driver answers [rows, affected count].
    const [rows]: [Array<{ tenant_id: string }>, number] = await this.main.query(
      `UPDATE outbox_pending SET due_at = now() + $2 * interval '1 millisecond'
        WHERE tenant_id IN (
          SELECT tenant_id FROM outbox_pending
           WHERE due_at <= now()
           ORDER BY due_at
           LIMIT $1
           FOR UPDATE SKIP LOCKED)
        RETURNING tenant_id`,
      [limit, leaseMs],
    );
    return rows.map((row) => row.tenant_id);
  }

  /** Takes one tenant's hint, if there is one, pushing it `leaseMs` ahead; answers its version (null: none). */
  async take(tenantId: string, leaseMs: number): Promise<ExactTime | null> {
    const [rows]: [Array<{ version: ExactTime }>, number] = await this.main.query(
      `UPDATE outbox_pending SET due_at = now() + $2 * interval '1 millisecond' WHERE tenant_id = $1
        RETURNING ${exactTime('updated_at')} AS version`,
      [tenantId, leaseMs],
    );
    return rows[0]?.version ?? null;
  }

  /**
   * After a pass over the tenant's outbox: the hint is due at `next`, or is
   * deleted when nothing is pending (`next` null). Both only while the hint is
   * still the version `seen` when it was taken: a `touch` since then keeps it
   * due now. A tenant with pending rows but no hint gets one (the sweep's case).
   */
  async settle(tenantId: string, seen: ExactTime | null, next: NextLook | null): Promise<void> {
    if (next === null) {
      if (seen !== null) {
        await this.main.query(`DELETE FROM outbox_pending WHERE tenant_id = $1 AND updated_at = $2::timestamptz`, [tenantId, seen]);
      }
      return;
    }
    const [at, inMs] = 'at' in next ? [next.at, null] : [null, next.inMs];
    await unlessTenantGone(
      this.main.query(
        `INSERT INTO outbox_pending AS p (tenant_id, due_at)
         VALUES ($1, coalesce($2::timestamptz, now() + $3::float8 * interval '1 millisecond'))
         ON CONFLICT (tenant_id) DO UPDATE SET due_at = excluded.due_at WHERE p.updated_at IS NOT DISTINCT FROM $4::timestamptz`,
        [tenantId, at, inMs, seen],
      ),
    );
  }

  /** How many tenants have pending mail, and how long the most overdue one has been due (for metrics). */
  async depth(): Promise<{ tenants: number; oldestDueSeconds: number }> {
    const [row]: Array<{ tenants: number; oldest: number | null }> = await this.main.query(
      `SELECT count(*)::int AS tenants, greatest(0, extract(epoch FROM now() - min(due_at)))::float8 AS oldest FROM outbox_pending`,
    );
    return { tenants: row?.tenants ?? 0, oldestDueSeconds: Number(row?.oldest ?? 0) };
  }
}
