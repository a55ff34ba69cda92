import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenant moves under way (`iam-tenant-move`): one row per tenant whose database is
 * being copied to another server (`copying`: the source is read-only, the directory
 * still places the tenant there) or has been switched over (`switched`: the directory
 * places it on the target, the source is still to be dropped). An interrupted move
 * is resumed or rolled back from this row.
 */
export class TenantMoves1763700000016 implements MigrationInterface {
  name = 'TenantMoves1763700000016';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tenant_moves (
        tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
        source_server text,
        target_server text,
        state text NOT NULL CHECK (state IN ('copying', 'switched')),
        started_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE tenant_moves`);
  }
}
