import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Account lifecycle: sign-in sessions with rotating refresh tokens, single-use
 * account links (password reset, magic-link sign-in, email verification), and the
 * sector settings that govern them.
 */
export class AccountLifecycle1763700000007 implements MigrationInterface {
  name = 'AccountLifecycle1763700000007';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE sector_settings
        ADD COLUMN magic_link_login_enabled boolean NOT NULL DEFAULT false,
        ADD COLUMN session_lifetime_seconds bigint NOT NULL DEFAULT 2592000,
        ADD COLUMN session_idle_timeout_seconds bigint NOT NULL DEFAULT 604800`);
    await q.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        sector_id uuid NOT NULL,
        client_ip text,
        user_agent text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        idle_timeout_seconds bigint NOT NULL,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX sessions_user_idx ON sessions (user_id, created_at)`);
    await q.query(`CREATE INDEX sessions_expires_idx ON sessions (expires_at)`);
    await q.query(`
      CREATE TABLE refresh_tokens (
        token_hash text PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        used_at timestamptz
      )`);
    await q.query(`CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id)`);
    await q.query(`
      CREATE TABLE account_links (
        token_hash text PRIMARY KEY,
        kind text NOT NULL,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        email text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX account_links_user_kind_key ON account_links (user_id, kind)`);
    await q.query(`CREATE INDEX account_links_expires_idx ON account_links (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE account_links`);
    await q.query(`DROP TABLE refresh_tokens`);
    await q.query(`DROP TABLE sessions`);
    await q.query(`
      ALTER TABLE sector_settings
        DROP COLUMN session_idle_timeout_seconds,
        DROP COLUMN session_lifetime_seconds,
        DROP COLUMN magic_link_login_enabled`);
  }
}
