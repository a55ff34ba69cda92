import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MAIN_DATA_SOURCE } from '../database/tokens';

/** A counter key and its allowance (free attempts before a block). */
export interface CounterKey {
  key: string;
  freeAttempts: number;
}

// Shared by every key's upsert in a statement: $1 the delay schedule (throttle-policy.ts), $2 the window in seconds;
// each key's name and allowance are parameters of their own (countAttempt's `key` and `free`).
const FORGOTTEN = `greatest(c.last_failure_at, c.blocked_until) <= now() - $2::int * interval '1 second'`;
const FAILURES_AFTER = `CASE WHEN ${FORGOTTEN} THEN 1 ELSE c.failures + 1 END`;
const blockedUntil = (failures: string, free: string) =>
  `CASE WHEN ${failures} >= greatest(${free}::int, 1) THEN now() + ($1::int[])[least(${failures} - greatest(${free}::int, 1) + 1, cardinality($1::int[]))] * interval '1 second' END`;

/**
 * The upsert that checks and counts one attempt on one key (its name `$key`, its
 * allowance `$free`): refused (no row returned) while a block runs, else counted —
 * starting the count again when the key's last attempt and block both ended a
 * window ago, and blocking the key for the schedule's delay once the count reaches
 * the allowance.
 */
function countAttempt(key: string, free: string): string {
  return `INSERT INTO throttle_counters AS c (key, failures, first_failure_at, last_failure_at, blocked_until)
       VALUES (${key}, 1, now(), now(), ${blockedUntil('1', free)})
       ON CONFLICT (key) DO UPDATE SET
         failures = ${FAILURES_AFTER},
         first_failure_at = CASE WHEN ${FORGOTTEN} THEN now() ELSE c.first_failure_at END,
         last_failure_at = now(),
         blocked_until = ${blockedUntil(`(${FAILURES_AFTER})`, free)}
       WHERE c.blocked_until IS NULL OR c.blocked_until <= now()
       RETURNING key`;
}

/** Keys in the order of their names: the order in which every statement takes their rows' locks. */
function inKeyOrder(keys: CounterKey[]): CounterKey[] {
  return [...keys].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
}

/**
 * Attempt counters in the main database, so that every instance sees the same
 * counts. Each change is one statement on the database clock: concurrent
 * attempts on one key serialize on its row and each sees the count before it.
 * The keys of one attempt (its account and its address) change in that one
 * statement, always in the order of their names, so that two statements sharing
 * keys lock them in the same order.
 */
@Injectable()
export class ThrottleRepository {
  constructor(@Inject(MAIN_DATA_SOURCE) private readonly main: DataSource) {}

  /**
   * Checks and counts one attempt on each of `keys` in one statement (see
   * countAttempt). Answers, per key in the order given, 0 when the attempt was
   * counted, else the seconds the key is still blocked.
   */
  async reserve(keys: CounterKey[], schedule: number[], windowSeconds: number): Promise<number[]> {
    if (keys.length === 0) return [];
    const ordered = inKeyOrder(keys);
    const params: unknown[] = [schedule, windowSeconds, ...ordered.flatMap((k) => [k.key, k.freeAttempts])];
    const steps = ordered.map((_, i) => `k${i} AS (${countAttempt(`$${3 + 2 * i}`, `$${4 + 2 * i}`)})`);
    const rows: Array<{ key: string }> = await this.main.query(
      `WITH ${steps.join(',\n')}\n${ordered.map((_, i) => `SELECT key FROM k${i}`).join(' UNION ALL ')}`,
      params,
    );
    const counted = new Set(rows.map((r) => r.key));
    const refused = keys.filter((k) => !counted.has(k.key)).map((k) => k.key);
    const wait = refused.length > 0 ? Math.max(1, await this.blockedFor(refused)) : 0;
    return keys.map((k) => (counted.has(k.key) ? 0 : wait));
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
   * In one statement, forgets the failures of `resets` and gives one counted
   * attempt back to each of `releases` (it turned out right, or another key
   * refused it): their count drops by one, and a block goes with it once the
   * count is below the allowance again.
   */
  async settle(resets: string[], releases: CounterKey[]): Promise<void> {
    if (resets.length === 0 && releases.length === 0) return;
    // `locked` takes every row this statement changes, in key order, before the DELETE or the UPDATE touches one
    // (both only touch rows it returned). Without it the UPDATE ran first and the unreferenced DELETE last, so a
    // settlement took the address before the account while a concurrent count took the account before the address.
    await this.main.query(
      `WITH locked AS MATERIALIZED (
         SELECT key FROM throttle_counters WHERE key = ANY($1::text[]) OR key = ANY($2::text[]) ORDER BY key FOR UPDATE),
       forgotten AS (DELETE FROM throttle_counters WHERE key = ANY($1::text[]) AND key IN (SELECT key FROM locked))
       UPDATE throttle_counters c SET failures = greatest(c.failures - 1, 0),
         blocked_until = CASE WHEN c.failures - 1 < greatest(r.free, 1) THEN NULL ELSE c.blocked_until END
         FROM unnest($2::text[], $3::int[]) AS r(key, free)
        WHERE c.key = r.key AND c.key IN (SELECT key FROM locked)`,
      [resets, releases.map((k) => k.key), releases.map((k) => k.freeAttempts)],
    );
  }

  /**
   * Deletes up to `limit` rows that no longer count (last failure and block a
   * window ago). It never waits for a row another statement holds (SKIP LOCKED),
   * so it cannot take part in a deadlock, and the outer condition is re-checked
   * on a row a racing failure just updated, so a fresh count is never deleted.
   */
  async purgeIdle(windowSeconds: number, limit: number): Promise<number> {
    const [, deleted]: [unknown, number] = await this.main.query(
      `DELETE FROM throttle_counters
        WHERE key IN (SELECT key FROM throttle_counters
                       WHERE greatest(last_failure_at, blocked_until) < now() - $1::int * interval '1 second'
                       ORDER BY key LIMIT $2 FOR UPDATE SKIP LOCKED)
          AND greatest(last_failure_at, blocked_until) < now() - $1::int * interval '1 second'`,
      [windowSeconds, limit],
    );
    return deleted;
  }
}
