import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks of a sector, and the deliveries of the service's events to them.
 *
 *  - `webhooks`: an endpoint (https URL, the event types it takes, `{'*'}` for all),
 *    its signing secret sealed (`secret_sealed`) and, for 24 hours after a rotation,
 *    the previous one (`previous_secret_sealed` until `previous_secret_expires_at`).
 *    `failing_since` is when the current run of failed deliveries began (null while
 *    deliveries succeed); past WEBHOOK_DISABLE_AFTER_SECONDS the endpoint is disabled.
 *  - `webhook_deliveries`: one row per event and endpoint, written by the change's
 *    own transaction (the outbox pattern of mail): `event_id` is the `webhook-id`,
 *    the same on every attempt; `payload` the exact body sent. The outbox worker
 *    claims due rows `FOR UPDATE SKIP LOCKED` with a lease (`locked_until`) and
 *    records each attempt's answer (`last_status`, `last_error`).
 */
export class Webhooks1763700000022 implements MigrationInterface {
  name = 'Webhooks1763700000022';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks (
        id uuid PRIMARY KEY,
        sector_id uuid NOT NULL REFERENCES sectors (id) ON DELETE CASCADE,
        url text NOT NULL,
        events text[] NOT NULL,
        description text NOT NULL DEFAULT '',
        enabled boolean NOT NULL DEFAULT true,
        secret_sealed text NOT NULL,
        previous_secret_sealed text,
        previous_secret_expires_at timestamptz,
        failing_since timestamptz,
        disabled_reason text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The fan-out's question for every event: which enabled endpoints of this sector take it?
    await q.query(`CREATE INDEX webhooks_sector_idx ON webhooks (sector_id) WHERE enabled`);
    await q.query(`CREATE INDEX webhooks_sector_created_idx ON webhooks (sector_id, created_at, id)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id bigserial PRIMARY KEY,
        webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event_id text NOT NULL,
        event_type text NOT NULL,
        payload text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        locked_until timestamptz,
        last_status integer,
        last_error text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        UNIQUE (webhook_id, event_id)
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    // The delivery log of an endpoint, newest first.
    await q.query(`CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id DESC)`);
    await q.query(`CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (finished_at) WHERE status <> 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhooks`);
  }
}
