import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revocation on password change and anonymous code caps: users carry a credential
 * version (access tokens name the version they were issued under) and the one
 * token kept across their latest change; factors count the codes sent to sign-ins
 * that had no factor yet.
 */
export class CredentialRevocation1763700000005 implements MigrationInterface {
  name = 'CredentialRevocation1763700000005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE users
        ADD COLUMN credential_version integer NOT NULL DEFAULT 0,
        ADD COLUMN kept_token_jti text,
        ADD COLUMN credentials_changed_at timestamptz`);
    await q.query(`
      ALTER TABLE otp_registrations
        ADD COLUMN anon_sends integer NOT NULL DEFAULT 0,
        ADD COLUMN anon_window_start timestamptz`);
    await q.query(`CREATE INDEX otp_registrations_pending_idx ON otp_registrations (created_at) WHERE verified_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX otp_registrations_pending_idx`);
    await q.query(`ALTER TABLE otp_registrations DROP COLUMN anon_window_start, DROP COLUMN anon_sends`);
    await q.query(`ALTER TABLE users DROP COLUMN credentials_changed_at, DROP COLUMN kept_token_jti, DROP COLUMN credential_version`);
  }
}
