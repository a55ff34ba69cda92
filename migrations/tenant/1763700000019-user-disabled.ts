import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user can be switched off without being deleted: `users.disabled_at` is when an
 * admin disabled them (null: enabled). A disabled user cannot sign in and has no
 * live session; everything else of theirs is kept. The partial index serves the
 * user list's `filterDisabled`.
 */
export class UserDisabled1763700000019 implements MigrationInterface {
  name = 'UserDisabled1763700000019';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN disabled_at timestamptz`);
    await q.query(`CREATE INDEX users_disabled_idx ON users (sector_id, created_at) WHERE disabled_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX users_disabled_idx`);
    await q.query(`ALTER TABLE users DROP COLUMN disabled_at`);
  }
}
