import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Full OIDC profiles, invitations and sector API tokens; indexes for listing a
 * million users of one sector (trigram search, one index per sort order).
 */
export class UsersInvitesTokens1763700000002 implements MigrationInterface {
  name = 'UsersInvitesTokens1763700000002';

  async up(q: QueryRunner): Promise<void> {
    // Trusted extension; in schema mode the main database already has it (main migration), in public.
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`);
    await q.query(`
      ALTER TABLE users
        ADD COLUMN given_name text NOT NULL DEFAULT '',
        ADD COLUMN family_name text NOT NULL DEFAULT '',
        ADD COLUMN middle_name text NOT NULL DEFAULT '',
        ADD COLUMN nickname text NOT NULL DEFAULT '',
        ADD COLUMN preferred_username text NOT NULL DEFAULT '',
        ADD COLUMN profile text NOT NULL DEFAULT '',
        ADD COLUMN picture text NOT NULL DEFAULT '',
        ADD COLUMN website text NOT NULL DEFAULT '',
        ADD COLUMN gender text NOT NULL DEFAULT '',
        ADD COLUMN birthdate text NOT NULL DEFAULT '',
        ADD COLUMN zoneinfo text NOT NULL DEFAULT '',
        ADD COLUMN locale text NOT NULL DEFAULT '',
        ADD COLUMN phone_number text NOT NULL DEFAULT '',
        ADD COLUMN phone_number_verified boolean NOT NULL DEFAULT false,
        ADD COLUMN address jsonb NOT NULL DEFAULT '{}',
        ADD COLUMN invite_token_hash text,
        ADD COLUMN invite_expires_at timestamptz,
        ADD COLUMN invite_accepted_at timestamptz`);
    await q.query(`CREATE UNIQUE INDEX users_invite_token_key ON users (invite_token_hash) WHERE invite_token_hash IS NOT NULL`);
    // Search: one trigram index over name, email and username (\x01 keeps a term from spanning two fields).
    await q.query(
      `CREATE INDEX users_search_trgm_idx ON users USING gin ((lower(name || chr(1) || email || chr(1) || username)) public.gin_trgm_ops)`,
    );
    await q.query(`CREATE INDEX users_sector_created_idx ON users (sector_id, created_at, id)`);
    await q.query(`CREATE INDEX users_sector_updated_idx ON users (sector_id, updated_at, id)`);
    await q.query(`CREATE INDEX users_sector_name_idx ON users (sector_id, lower(name), id)`);
    await q.query(`CREATE INDEX users_sector_email_sort_idx ON users (sector_id, lower(email), id)`);
    await q.query(`
      CREATE TABLE api_tokens (
        id uuid PRIMARY KEY,
        sector_id uuid NOT NULL REFERENCES sectors(id) ON DELETE CASCADE,
        name text NOT NULL,
        prefix text NOT NULL,
        token_hash text NOT NULL,
        created_by uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        CONSTRAINT api_tokens_hash_key UNIQUE (token_hash)
      )`);
    await q.query(`CREATE INDEX api_tokens_sector_idx ON api_tokens (sector_id, created_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_tokens`);
    await q.query(`DROP INDEX users_sector_email_sort_idx, users_sector_name_idx, users_sector_updated_idx, users_sector_created_idx, users_search_trgm_idx, users_invite_token_key`);
    await q.query(`
      ALTER TABLE users
        DROP COLUMN given_name, DROP COLUMN family_name, DROP COLUMN middle_name, DROP COLUMN nickname,
        DROP COLUMN preferred_username, DROP COLUMN profile, DROP COLUMN picture, DROP COLUMN website,
        DROP COLUMN gender, DROP COLUMN birthdate, DROP COLUMN zoneinfo, DROP COLUMN locale,
        DROP COLUMN phone_number, DROP COLUMN phone_number_verified, DROP COLUMN address,
        DROP COLUMN invite_token_hash, DROP COLUMN invite_expires_at, DROP COLUMN invite_accepted_at`);
  }
}
