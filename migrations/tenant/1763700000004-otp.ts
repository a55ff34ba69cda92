import { MigrationInterface, QueryRunner } from 'typeorm';

/** One-time-code factors: email and SMS destinations and TOTP secrets (sealed). */
export class Otp1763700000004 implements MigrationInterface {
  name = 'Otp1763700000004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE otp_registrations (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('email', 'sms', 'totp')),
        destination text NOT NULL DEFAULT '',
        secret_sealed text,
        verified_at timestamptz,
        last_totp_step bigint NOT NULL DEFAULT 0,
        code_mac text,
        code_expires_at timestamptz,
        code_attempts_left integer NOT NULL DEFAULT 0,
        code_sent_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX otp_registrations_user_idx ON otp_registrations (user_id, created_at)`);
    await q.query(`CREATE UNIQUE INDEX otp_registrations_destination_key ON otp_registrations (user_id, type, lower(destination)) WHERE type <> 'totp'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE otp_registrations`);
  }
}
