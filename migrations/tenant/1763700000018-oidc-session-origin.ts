import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which of the service's sessions each OpenID Provider session came from, so that
 * ending a session (sign-out, revocation, a password change, deleting the user)
 * ends the provider sessions it started and the tokens they issued:
 *
 *  - `oidc_payloads.service_session_id`: on a provider session's row, the service
 *    session whose access token finished the sign-in request that logged it in.
 *  - `oidc_payloads.session_uid`: on a code's, token's or device code's row, the
 *    provider session it was issued in (the library's `sessionUid`).
 */
export class OidcSessionOrigin1763700000018 implements MigrationInterface {
  name = 'OidcSessionOrigin1763700000018';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE oidc_payloads ADD COLUMN service_session_id uuid, ADD COLUMN session_uid text`);
    await q.query(`CREATE INDEX oidc_payloads_service_session_idx ON oidc_payloads (service_session_id) WHERE service_session_id IS NOT NULL`);
    await q.query(`CREATE INDEX oidc_payloads_session_uid_idx ON oidc_payloads (session_uid) WHERE session_uid IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE oidc_payloads DROP COLUMN session_uid, DROP COLUMN service_session_id`);
  }
}
