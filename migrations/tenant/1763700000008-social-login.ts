import { MigrationInterface, QueryRunner } from 'typeorm';

/** Social login: each sector's identity-provider configuration (secrets sealed) and the provider identities linked to users. */
export class SocialLogin1763700000008 implements MigrationInterface {
  name = 'SocialLogin1763700000008';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE oauth_providers (
        id uuid PRIMARY KEY,
        sector_id uuid NOT NULL REFERENCES sectors(id) ON DELETE CASCADE,
        provider text NOT NULL,
        enabled boolean NOT NULL DEFAULT false,
        client_id text NOT NULL DEFAULT '',
        client_secret_sealed text,
        team_id text NOT NULL DEFAULT '',
        key_id text NOT NULL DEFAULT '',
        private_key_sealed text,
        redirect_uri text NOT NULL DEFAULT '',
        issuer_url text NOT NULL DEFAULT '',
        app_id text NOT NULL DEFAULT '',
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT oauth_providers_sector_provider_key UNIQUE (sector_id, provider)
      )`);
    await q.query(`
      CREATE TABLE linked_identities (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        sector_id uuid NOT NULL REFERENCES sectors(id) ON DELETE CASCADE,
        provider text NOT NULL,
        subject text NOT NULL,
        email text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz,
        CONSTRAINT linked_identities_subject_key UNIQUE (sector_id, provider, subject)
      )`);
    await q.query(`CREATE INDEX linked_identities_user_idx ON linked_identities (user_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE linked_identities`);
    await q.query(`DROP TABLE oauth_providers`);
  }
}
