import { MigrationInterface, QueryRunner } from 'typeorm';

/** The core tables of every tenant database (or schema): sectors, settings, users, auth transactions. */
export class TenantCore1763700000001 implements MigrationInterface {
  name = 'TenantCore1763700000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sectors (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        domain text NOT NULL DEFAULT '',
        slug text NOT NULL,
        is_default boolean NOT NULL DEFAULT false,
        allowed_origins text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT sectors_slug_key UNIQUE (slug)
      )`);
    await q.query(`CREATE UNIQUE INDEX sectors_single_default ON sectors ((true)) WHERE is_default`);
    await q.query(`CREATE INDEX sectors_created_idx ON sectors (created_at, id)`);
    await q.query(`
      CREATE TABLE sector_settings (
        sector_id uuid PRIMARY KEY REFERENCES sectors(id) ON DELETE CASCADE,
        mfa_required boolean NOT NULL DEFAULT false,
        self_sign_up_allowed boolean NOT NULL DEFAULT false,
        allow_user_creation_for_non_admins boolean NOT NULL DEFAULT false,
        allow_user_read_for_non_admins boolean NOT NULL DEFAULT false,
        otp_email_subject text NOT NULL DEFAULT '',
        otp_email_body_template text NOT NULL DEFAULT '',
        otp_email_body_html_template text NOT NULL DEFAULT '',
        otp_sms_template text NOT NULL DEFAULT '',
        invite_email_subject text NOT NULL DEFAULT '',
        invite_email_body_template text NOT NULL DEFAULT '',
        invite_email_body_html_template text NOT NULL DEFAULT '',
        invite_expiration_hours bigint NOT NULL DEFAULT 168,
        access_token_duration bigint NOT NULL DEFAULT 3600,
        password_reset_email_subject text NOT NULL DEFAULT '',
        password_reset_email_body_template text NOT NULL DEFAULT '',
        password_reset_email_body_html_template text NOT NULL DEFAULT '',
        password_reset_timeout_minutes bigint NOT NULL DEFAULT 15,
        webauthn_rp_id text NOT NULL DEFAULT '',
        webauthn_rp_display_name text NOT NULL DEFAULT '',
        webauthn_rp_origins text[] NOT NULL DEFAULT '{}',
        magic_link_url text NOT NULL DEFAULT '',
        webauthn_debug boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        sector_id uuid NOT NULL REFERENCES sectors(id) ON DELETE CASCADE,
        username text NOT NULL,
        email text NOT NULL DEFAULT '',
        email_verified boolean NOT NULL DEFAULT false,
        name text NOT NULL DEFAULT '',
        password_hash text,
        is_admin boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX users_sector_username_key ON users (sector_id, lower(username))`);
    await q.query(`CREATE UNIQUE INDEX users_sector_email_key ON users (sector_id, lower(email)) WHERE email <> ''`);
    await q.query(`CREATE INDEX users_sector_admin_idx ON users (sector_id) WHERE is_admin`);
    await q.query(`
      CREATE TABLE auth_transactions (
        id text PRIMARY KEY,
        kind text NOT NULL,
        sector_id uuid NOT NULL REFERENCES sectors(id) ON DELETE CASCADE,
        user_id uuid REFERENCES users(id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('PENDING', 'SUCCESS', 'FAILED')),
        factors text[] NOT NULL DEFAULT '{}',
        pending_challenge text NOT NULL DEFAULT '',
        attempts_left integer NOT NULL DEFAULT 5,
        data jsonb NOT NULL DEFAULT '{}',
        client_ip text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        completed_at timestamptz
      )`);
    await q.query(`CREATE INDEX auth_transactions_expires_idx ON auth_transactions (expires_at)`);
    await q.query(`CREATE INDEX auth_transactions_user_idx ON auth_transactions (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE auth_transactions`);
    await q.query(`DROP TABLE users`);
    await q.query(`DROP TABLE sector_settings`);
    await q.query(`DROP TABLE sectors`);
  }
}
