import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tenant directory of the main database: tenants, their signing keys, sector routing. */
export class Directory1763700000000 implements MigrationInterface {
  name = 'Directory1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tenants (
        id uuid PRIMARY KEY,
        slug text NOT NULL,
        name text NOT NULL,
        is_platform boolean NOT NULL DEFAULT false,
        storage text NOT NULL CHECK (storage IN ('main', 'pooled', 'schema')),
        database_name text,
        schema_name text,
        kid text NOT NULL,
        root_sector_id uuid NOT NULL,
        schema_version text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT tenants_slug_key UNIQUE (slug)
      )`);
    await q.query(`CREATE UNIQUE INDEX tenants_single_platform ON tenants ((true)) WHERE is_platform`);
    await q.query(`
      CREATE TABLE signing_keys (
        kid text PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        alg text NOT NULL,
        public_jwk jsonb NOT NULL,
        private_key_sealed text NOT NULL,
        max_token_ttl_seconds integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        retired_at timestamptz
      )`);
    await q.query(`CREATE INDEX signing_keys_tenant_idx ON signing_keys (tenant_id)`);
    await q.query(`
      CREATE TABLE sector_directory (
        sector_id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        slug text NOT NULL,
        name text NOT NULL,
        is_default boolean NOT NULL,
        CONSTRAINT sector_directory_tenant_slug_key UNIQUE (tenant_id, slug)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sector_directory`);
    await q.query(`DROP TABLE signing_keys`);
    await q.query(`DROP TABLE tenants`);
  }
}
