import { Injectable } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';

/**
 * The fan-out of an event to the webhooks that take it: one `webhook_deliveries`
 * row per enabled endpoint of the sector subscribed to its type (or to `*`),
 * written by one statement in the transaction of the change.
 */
@Injectable()
export class EventOutboxRepository {
  /**
   * Queues `payload` (the exact body to send) for each enabled endpoint of the
   * sector subscribed to `type`; answers how many. With `webhookId` (a test
   * event), for that endpoint alone, whatever it subscribes to and even while disabled.
   */
  async fanOut(db: TenantDb, sectorId: string, eventId: string, type: string, payload: string, webhookId?: string): Promise<number> {
    const rows =
      webhookId === undefined
        ? await db.rows(
            `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload)
             SELECT id, $2, $3, $4 FROM webhooks
              WHERE sector_id = $1 AND enabled AND (events @> ARRAY[$3]::text[] OR events @> ARRAY['*']::text[])
             RETURNING 1`,
            [sectorId, eventId, type, payload],
          )
        : await db.rows(
            `INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload)
             SELECT id, $2, $3, $4 FROM webhooks WHERE sector_id = $1 AND id = $5::uuid
             RETURNING 1`,
            [sectorId, eventId, type, payload, webhookId],
          );
    return rows.length;
  }
}
