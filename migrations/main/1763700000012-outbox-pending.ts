import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which tenants' outboxes hold pending mail or SMS, and when to look next: one row
 * per tenant, written by `MailService.kick` after a commit and kept by the outbox
 * worker, so that no instance has to open every tenant's database to find mail.
 */
export class OutboxPending1763700000012 implements MigrationInterface {
  name = 'OutboxPending1763700000012';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE outbox_pending (
        tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
        due_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The workers' polls take due hints, earliest first. (Named apart from the outbox's
    // outbox_pending_due_idx: the platform tenant's tables share this schema.)
    await q.query(`CREATE INDEX outbox_pending_due_at_idx ON outbox_pending (due_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE outbox_pending`);
  }
}
