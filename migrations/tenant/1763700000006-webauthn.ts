import { MigrationInterface, QueryRunner } from 'typeorm';

/** Passkeys: the WebAuthn credentials of users (public keys, counters, flags, names). */
export class WebAuthn1763700000006 implements MigrationInterface {
  name = 'WebAuthn1763700000006';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webauthn_credentials (
        credential_id text PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        sector_id uuid NOT NULL REFERENCES sectors(id) ON DELETE CASCADE,
        public_key bytea NOT NULL,
        sign_count bigint NOT NULL DEFAULT 0,
        transports text[] NOT NULL DEFAULT '{}',
        aaguid text NOT NULL DEFAULT '',
        attestation_format text NOT NULL DEFAULT 'none',
        rp_id text NOT NULL,
        backup_eligible boolean NOT NULL DEFAULT false,
        backed_up boolean NOT NULL DEFAULT false,
        clone_warning boolean NOT NULL DEFAULT false,
        key_name text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz
      )`);
    await q.query(`CREATE INDEX webauthn_credentials_user_idx ON webauthn_credentials (user_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webauthn_credentials`);
  }
}
