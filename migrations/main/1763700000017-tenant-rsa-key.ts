import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A tenant's RSA signing key (RS256), beside its EC key (`kid`, ES256): OpenID
 * Discovery requires RS256 for ID tokens, and certified relying parties default to
 * it. Made the first time one of the tenant's sectors acts as an OpenID Provider
 * (null until then), rotated with the EC key by `keys:rotate`.
 */
export class TenantRsaKey1763700000017 implements MigrationInterface {
  name = 'TenantRsaKey1763700000017';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenants ADD COLUMN rsa_kid text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenants DROP COLUMN rsa_kid`);
  }
}
