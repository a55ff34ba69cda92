import { MigrationInterface, QueryRunner } from 'typeorm';

/** The audit trail: security-relevant events, appended in the transaction of the change they describe; their retention per sector. */
export class AuditEvents1763700000009 implements MigrationInterface {
  name = 'AuditEvents1763700000009';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_events (
        id bigserial PRIMARY KEY,
        occurred_at timestamptz NOT NULL DEFAULT now(),
        sector_id uuid NOT NULL,
        type text NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('success', 'failure')),
        reason text NOT NULL DEFAULT '',
        actor_kind text NOT NULL CHECK (actor_kind IN ('user', 'apiToken', 'system', 'anonymous')),
        actor_id text NOT NULL DEFAULT '',
        target_kind text NOT NULL DEFAULT '',
        target_id text NOT NULL DEFAULT '',
        client_ip text NOT NULL DEFAULT '',
        request_id text NOT NULL DEFAULT '',
        details jsonb NOT NULL DEFAULT '{}'
      )`);
    await q.query(`CREATE INDEX audit_events_sector_id_idx ON audit_events (sector_id, id)`);
    await q.query(`CREATE INDEX audit_events_sector_time_idx ON audit_events (sector_id, occurred_at)`);
    await q.query(`ALTER TABLE sector_settings ADD COLUMN audit_retention_days bigint NOT NULL DEFAULT 365`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sector_settings DROP COLUMN audit_retention_days`);
    await q.query(`DROP TABLE audit_events`);
  }
}
