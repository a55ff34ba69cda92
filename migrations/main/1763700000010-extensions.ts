import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Extensions are per database: created once in the main database's public schema
 * so that schema-mode tenants (and the platform tenant) find them there.
 */
export class Extensions1763700000010 implements MigrationInterface {
  name = 'Extensions1763700000010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`);
  }

  async down(): Promise<void> {
    // Left in place: other schemas' indexes may use it.
  }
}
