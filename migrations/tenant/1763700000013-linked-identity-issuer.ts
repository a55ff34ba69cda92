import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Linked identities keyed by issuer: a provider identity is the provider's
 * issuer and its subject, not the provider's name in this service. Existing
 * links get the issuer of their provider (the fixed issuers of Google, Apple and
 * GitHub; for the generic `oidc` provider, the issuer its sector has configured
 * now — '' where none is, which no configured provider matches), and the unique
 * key becomes (sector_id, issuer, subject). Also indexes the lookup of a social
 * flow's result by the hash of the code it is taken with.
 */
export class LinkedIdentityIssuer1763700000013 implements MigrationInterface {
  name = 'LinkedIdentityIssuer1763700000013';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE linked_identities ADD COLUMN issuer text`);
    await q.query(`
      UPDATE linked_identities li SET issuer = CASE li.provider
        WHEN 'google' THEN 'https://accounts.google.com'
        WHEN 'apple' THEN 'https://appleid.apple.com'
        WHEN 'github' THEN 'https://github.com'
        ELSE coalesce((SELECT p.issuer_url FROM oauth_providers p WHERE p.sector_id = li.sector_id AND p.provider = li.provider), '')
      END`);
    await q.query(`ALTER TABLE linked_identities ALTER COLUMN issuer SET NOT NULL`);
    await q.query(`ALTER TABLE linked_identities DROP CONSTRAINT linked_identities_subject_key`);
    await q.query(`ALTER TABLE linked_identities ADD CONSTRAINT linked_identities_issuer_subject_key UNIQUE (sector_id, issuer, subject)`);
    await q.query(`CREATE INDEX auth_transactions_oauth_code_idx ON auth_transactions ((data->'oauth'->>'codeHash')) WHERE (data->'oauth'->>'codeHash') IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX auth_transactions_oauth_code_idx`);
    await q.query(`ALTER TABLE linked_identities DROP CONSTRAINT linked_identities_issuer_subject_key`);
    await q.query(`ALTER TABLE linked_identities ADD CONSTRAINT linked_identities_subject_key UNIQUE (sector_id, provider, subject)`);
    await q.query(`ALTER TABLE linked_identities DROP COLUMN issuer`);
  }
}
