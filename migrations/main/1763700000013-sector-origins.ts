import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sectors' allowed origins in the routing directory, so that every instance
 * can answer CORS for them without opening any tenant database. NULL marks an
 * entry written before this column existed; the start-up migration copies those
 * from the tenant databases once.
 */
export class SectorOrigins1763700000013 implements MigrationInterface {
  name = 'SectorOrigins1763700000013';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sector_directory ADD COLUMN allowed_origins text[]`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sector_directory DROP COLUMN allowed_origins`);
  }
}
