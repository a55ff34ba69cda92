import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What SCIM provisioning (RFC 7643/7644) keeps of a user beyond the profile columns:
 *
 *  - `users.external_id`: the directory's own id for the user (SCIM `externalId`),
 *    indexed per sector for the `externalId eq "…"` lookups directories start with;
 *  - `users.scim`: the SCIM attributes that have no column of their own, as the
 *    directory sent them: every email and phone number (`emails`, `phoneNumbers`;
 *    the primary ones are also the user's `email` and `phone_number`), the name's
 *    `formatted`, `honorificPrefix` and `honorificSuffix`, `title`, `userType`,
 *    `preferredLanguage`, and the enterprise extension (`enterprise`: employee
 *    number, cost centre, organization, division, department, manager);
 *  - `roles.external_id` and `roles.display_name`: a group's `externalId` and the
 *    `displayName` the directory gave it (SCIM groups are roles; the role's name,
 *    which tokens carry, is derived from the display name, see src/scim);
 *  - `sector_settings.scim_send_invitations`: whether a user a directory creates with
 *    an email is mailed an invitation (off: nothing is mailed).
 */
export class Scim1763700000021 implements MigrationInterface {
  name = 'Scim1763700000021';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN external_id text`);
    await q.query(`ALTER TABLE users ADD COLUMN scim jsonb NOT NULL DEFAULT '{}'`);
    await q.query(`CREATE INDEX users_external_id_idx ON users (sector_id, external_id) WHERE external_id IS NOT NULL`);
    await q.query(`ALTER TABLE roles ADD COLUMN external_id text`);
    await q.query(`ALTER TABLE roles ADD COLUMN display_name text NOT NULL DEFAULT ''`);
    await q.query(`ALTER TABLE sector_settings ADD COLUMN scim_send_invitations boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sector_settings DROP COLUMN scim_send_invitations`);
    await q.query(`ALTER TABLE roles DROP COLUMN display_name`);
    await q.query(`ALTER TABLE roles DROP COLUMN external_id`);
    await q.query(`DROP INDEX users_external_id_idx`);
    await q.query(`ALTER TABLE users DROP COLUMN scim`);
    await q.query(`ALTER TABLE users DROP COLUMN external_id`);
  }
}
