import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Passkeys that may have been cloned stay refused (docs/security.md, Passkeys):
 * `webauthn_credentials.flagged_at` is set, with the clone warning, by the one
 * conditional UPDATE that notices a signature counter going backwards; while it
 * is set every sign-in with the passkey is refused (WEBAUTHN_CREDENTIAL_FLAGGED),
 * until a signed-in admin over the user's sector clears it.
 *
 * Existing rows start unflagged: a clone warning recorded before this migration
 * refused only the one sign-in that raised it, and stays visible as
 * `cloneWarning` in the passkey list.
 */
export class WebAuthnFlagged1763700000015 implements MigrationInterface {
  name = 'WebAuthnFlagged1763700000015';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webauthn_credentials ADD COLUMN flagged_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webauthn_credentials DROP COLUMN flagged_at`);
  }
}
