import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Failed sign-in attempt counters, shared by every instance. One row per key
 * (an account or a client address, per kind of secret); a row whose last failure
 * and block both lie a window in the past no longer counts and may be deleted.
 */
export class Throttle1763700000011 implements MigrationInterface {
  name = 'Throttle1763700000011';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE throttle_counters (
        key text PRIMARY KEY,
        failures integer NOT NULL,
        first_failure_at timestamptz NOT NULL,
        last_failure_at timestamptz NOT NULL,
        blocked_until timestamptz
      )`);
    // The clean-up finds idle rows by this (greatest() skips a NULL blocked_until).
    await q.query(`CREATE INDEX throttle_counters_idle_idx ON throttle_counters (greatest(last_failure_at, blocked_until))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE throttle_counters`);
  }
}
