import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which addresses may receive recovery links (docs/security.md, Account recovery):
 * `users.email_admin_set` is true while the user's email is one a signed-in admin
 * of the sector set (creating the user, or changing the address); any other change
 * of the address clears it. Password-reset and magic-link mails go only to an
 * address that is verified or admin-set.
 *
 * Existing users start with false: an unverified address of an existing user must
 * be verified (or set again by an admin) before it receives recovery links.
 */
export class EmailTrust1763700000014 implements MigrationInterface {
  name = 'EmailTrust1763700000014';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN email_admin_set boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users DROP COLUMN email_admin_set`);
  }
}
