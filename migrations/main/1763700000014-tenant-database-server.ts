import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The PostgreSQL server a pooled-mode tenant's database lives on, by the name
 * TENANT_DATABASE_SERVERS gives it; NULL is the main database's server (every tenant
 * written before this column existed, schema-mode tenants and the platform).
 */
export class TenantDatabaseServer1763700000014 implements MigrationInterface {
  name = 'TenantDatabaseServer1763700000014';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenants ADD COLUMN database_server text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenants DROP COLUMN database_server`);
  }
}
