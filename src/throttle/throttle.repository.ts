import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MAIN_DATA_SOURCE } from '../database/tokens';

// $2 the allowance, $3 the delay schedule (throttle-policy.ts), $4 the window in seconds.
const FORGOTTEN = `greatest(c.last_failure_at, c.blocked_until) <= now() - $4::int * interval '1 second'`;
const FAILURES_AFTER = `CASE WHEN ${FORGOTTEN} THEN 1 ELSE c.failures + 1 END`;
const blockedUntil = (failures: string) =>
  `CASE WHEN ${failures} >= greatest($2::int, 1) THEN now() + ($3::int[])[least(${failures} - greatest($2::int, 1) + 1, cardinality($3::int[]))] * interval '1 second' END`;

/**
 * Attempt counters in the main database, so that every instance sees the same
 * counts. Each change is one statement on the database clock: concurrent
 * attempts on one key serialize on its row and each sees the count before it.
 */
@Injectable()
export class ThrottleRepository {
  constructor(@Inject(MAIN_DATA_SOURCE) private readonly main: DataSource) {}

  /**
   * Checks and counts one attempt on `key` in one statement: refused (answering
   * the seconds the key is still blocked) while a block runs, else counted —
   * starting the count again when the key's last attempt and block both ended a
   * window ago, and blocking the key for the schedule's delay once the count
   * reaches `freeAttempts`. Answers 0 when the attempt was counted.
   */
  async reserve(key: string, freeAttempts: number, schedule: number[], windowSeconds: number): Promise<number> {
    const rows: Array<{ failures: number }> = await this.main.query(
      `INSERT INTO throttle_counters AS c (key, failures, first_failure_at, last_failure_at, blocked_until)
       VALUES ($1, 1, now(), now(), ${blockedUntil('1')})
       ON CONFLICT (key) DO UPDATE SET
         failures = ${FAILURES_AFTER},
         first_failure_at = CASE WHEN ${FORGOTTEN} THEN now() ELSE c.first_failure_at END,
         last_failure_at = now(),
         blocked_until = ${blockedUntil(`(${FAILURES_AFTER})`)}
       WHERE c.blocked_until IS NULL OR c.blocked_until <= now()
       RETURNING failures`,
      [key, freeAttempts, schedule, windowSeconds],
    );
    if (rows.length > 0) return 0;
    return Math.max(1, await this.blockedFor([key]));
  }

  /** Seconds until the last of the blocks on `keys` ends; 0 when none is blocked. */
  async blockedFor(keys: string[]): Promise<number> {
    const rows: Array<{ seconds: number | null }> = await this.main.query(
      `SELECT extract(epoch FROM max(blocked_until) - now())::float8 AS seconds
         FROM throttle_counters
        WHERE key = ANY($1::text[]) AND blocked_until > now()`,
      [keys],
    );
    return Math.max(0, Number(rows[0]?.seconds ?? 0));
  }

  /**
   * Gives one counted attempt back (it turned out right, or another key refused
   * it): the count drops by one, and a block goes with it once the count is below
   * the allowance again.
   */
  async release(key: string, freeAttempts: number): Promise<void> {
    await this.main.query(
      `UPDATE throttle_counters SET failures = greatest(failures - 1, 0),
         blocked_until = CASE WHEN failures - 1 < greatest($2::int, 1) THEN NULL ELSE blocked_until END
       WHERE key = $1`,
      [key, freeAttempts],
    );
  }

  /** Forgets a key's failures. */
  async reset(key: string): Promise<void> {
    await this.main.query(`DELETE FROM throttle_counters WHERE key = $1`, [key]);
  }

  /**
   * Deletes up to `limit` rows that no longer count (last failure and block a
   * window ago). The outer condition is re-checked on a row a racing failure
   * just updated, so a fresh count is never deleted.
   */
  async purgeIdle(windowSeconds: number, limit: number): Promise<number> {
    const [, deleted]: [unknown, number] = await this.main.query(
      `DELETE FROM throttle_counters
        WHERE key IN (SELECT key FROM throttle_counters
                       WHERE greatest(last_failure_at, blocked_until) < now() - $1::int * interval '1 second'
                       LIMIT $2)
          AND greatest(last_failure_at, blocked_until) < now() - $1::int * interval '1 second'`,
      [windowSeconds, limit],
    );
    return deleted;
  }
}
