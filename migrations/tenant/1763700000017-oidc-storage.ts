import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a sector needs to be an OpenID Provider (src/oidc):
 *
 *  - `oidc_clients`: the apps registered with a sector's issuer. The metadata is
 *    what RFC 7591 registered, without the secret; a confidential client's secret
 *    is sealed with MASTER_KEY. `first_party`: registered with an admin credential
 *    (its users are never asked for consent).
 *  - `oidc_payloads`: every other artifact of the provider (sessions, interactions,
 *    authorization codes, grants, access and refresh tokens, device codes, …), one
 *    row per (model, id) with the library's payload as JSON and the columns its
 *    lookups need: by grant (revoking everything a grant issued), by interaction
 *    uid, by device user code, by account (ending a user's provider sessions).
 *    Consuming a code or refresh token is one conditional UPDATE of `consumed_at`;
 *    `last_polled_at` is when a device last polled for its device code (RFC 8628's
 *    `slow_down`).
 *  - `sessions.amr`: how the sign-in that started a session authenticated the user
 *    (RFC 8176 references), which the provider's ID tokens carry as `amr`.
 */
export class OidcStorage1763700000017 implements MigrationInterface {
  name = 'OidcStorage1763700000017';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE oidc_clients (
        client_id text PRIMARY KEY,
        sector_id uuid NOT NULL REFERENCES sectors(id) ON DELETE CASCADE,
        metadata jsonb NOT NULL,
        client_secret_sealed text,
        first_party boolean NOT NULL DEFAULT false,
        created_by text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX oidc_clients_sector_idx ON oidc_clients (sector_id, created_at, client_id)`);
    await q.query(`
      CREATE TABLE oidc_payloads (
        model text NOT NULL,
        id text NOT NULL,
        sector_id uuid NOT NULL REFERENCES sectors(id) ON DELETE CASCADE,
        payload jsonb NOT NULL,
        grant_id text,
        uid text,
        user_code text,
        account_id text,
        expires_at timestamptz,
        consumed_at timestamptz,
        last_polled_at timestamptz,
        PRIMARY KEY (model, id)
      )`);
    await q.query(`CREATE INDEX oidc_payloads_grant_idx ON oidc_payloads (grant_id) WHERE grant_id IS NOT NULL`);
    await q.query(`CREATE INDEX oidc_payloads_uid_idx ON oidc_payloads (uid) WHERE uid IS NOT NULL`);
    await q.query(`CREATE INDEX oidc_payloads_user_code_idx ON oidc_payloads (user_code) WHERE user_code IS NOT NULL`);
    await q.query(`CREATE INDEX oidc_payloads_account_idx ON oidc_payloads (account_id) WHERE account_id IS NOT NULL`);
    await q.query(`CREATE INDEX oidc_payloads_expiry_idx ON oidc_payloads (expires_at)`);
    await q.query(`ALTER TABLE sessions ADD COLUMN amr text[] NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sessions DROP COLUMN amr`);
    await q.query(`DROP TABLE oidc_payloads`);
    await q.query(`DROP TABLE oidc_clients`);
  }
}
