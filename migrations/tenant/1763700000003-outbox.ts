import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The durable mail and SMS outbox of a tenant: a message is written here in the
 * same transaction as the change that caused it and sent later by the outbox
 * worker, which claims due rows with `FOR UPDATE SKIP LOCKED` and a lease
 * (`locked_until`), so several instances can share the work.
 */
export class Outbox1763700000003 implements MigrationInterface {
  name = 'Outbox1763700000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE outbox (
        id uuid PRIMARY KEY,
        channel text NOT NULL CHECK (channel IN ('email', 'sms')),
        tag text NOT NULL,
        recipient text NOT NULL,
        subject text NOT NULL DEFAULT '',
        body_text text NOT NULL DEFAULT '',
        body_html text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        locked_until timestamptz,
        last_error text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz
      )`);
    // The worker's question: which pending rows are due? Sent rows stay out of the index.
    await q.query(`CREATE INDEX outbox_pending_due_idx ON outbox (next_attempt_at) WHERE status = 'pending'`);
    // The periodic purge of delivered rows.
    await q.query(`CREATE INDEX outbox_sent_idx ON outbox (sent_at) WHERE status = 'sent'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE outbox`);
  }
}
