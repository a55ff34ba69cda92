import { Injectable } from '@nestjs/common';
import { exactTime, ExactTime } from '../outbox/outbox-pending.repository';
import { TenantDb } from '../tenancy/tenant-db';

/** A claimed delivery with what sending it needs of its endpoint. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  sectorId: string;
  eventId: string;
  eventType: string;
  payload: string;
  /** This attempt's number (1 for the first). */
  attempts: number;
  url: string;
  enabled: boolean;
  secretSealed: string;
  /** The previous secret while it still signs (24 h after a rotation), else null. */
  previousSecretSealed: string | null;
}

/**
 * The delivery side of `webhook_deliveries` (the fan-out writes them, see
 * src/events/event-outbox.repository.ts). Times are the database's (`now()`), so
 * instances with skewed clocks agree on what is due and whose lease ended.
 */
@Injectable()
export class WebhookDeliveryRepository {
  /**
   * Claims up to `limit` due deliveries, oldest first, in one statement: a lease
   * of `leaseMs` and one more attempt each. An endpoint gets at most
   * `perEndpoint` deliveries in flight, counting those other workers hold (their
   * leases), so one slow endpoint cannot take every sender. The UPDATE re-checks
   * each row's lease under its lock, so two workers never claim the same row.
   */
  async claimDue(db: TenantDb, limit: number, leaseMs: number, perEndpoint: number): Promise<ClaimedDelivery[]> {
    return db.rows<ClaimedDelivery>(
      `WITH due AS (
         SELECT id, webhook_id, row_number() OVER (PARTITION BY webhook_id ORDER BY id) AS rn
           FROM (SELECT id, webhook_id FROM webhook_deliveries
                  WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
                  ORDER BY id LIMIT 1000) oldest),
       busy AS (
         SELECT webhook_id, count(*) AS n FROM webhook_deliveries
          WHERE status = 'pending' AND locked_until >= now() AND webhook_id IN (SELECT webhook_id FROM due)
          GROUP BY webhook_id),
       picked AS (
         SELECT due.id FROM due LEFT JOIN busy ON busy.webhook_id = due.webhook_id
          WHERE due.rn + coalesce(busy.n, 0) <= $3
          ORDER BY due.id LIMIT $1),
       claimed AS (
         UPDATE webhook_deliveries SET locked_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1
          WHERE id IN (SELECT id FROM picked) AND status = 'pending' AND (locked_until IS NULL OR locked_until < now())
         RETURNING id, webhook_id, event_id, event_type, payload, attempts)
       SELECT c.id::text AS id, c.webhook_id AS "webhookId", w.sector_id AS "sectorId", c.event_id AS "eventId", c.event_type AS "eventType",
              c.payload, c.attempts, w.url, w.enabled, w.secret_sealed AS "secretSealed",
              CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret_sealed END AS "previousSecretSealed"
         FROM claimed c JOIN webhooks w ON w.id = c.webhook_id
        ORDER BY c.id`,
      [limit, leaseMs, perEndpoint],
    );
  }

  /** Any 2xx: delivered; the endpoint is no longer failing. */
  async succeeded(db: TenantDb, d: ClaimedDelivery, status: number): Promise<void> {
    await db.rows(
      `WITH done AS (
         UPDATE webhook_deliveries SET status = 'succeeded', finished_at = now(), locked_until = NULL, last_status = $2, last_error = ''
          WHERE id = $1 AND status = 'pending')
       UPDATE webhooks SET failing_since = NULL WHERE id = $3 AND failing_since IS NOT NULL`,
      [d.id, status, d.webhookId],
    );
  }

  /** Not delivered: tried again after `delayMs`, or (`delayMs` null) given up as failed. */
  async attemptFailed(db: TenantDb, d: ClaimedDelivery, status: number | null, error: string, delayMs: number | null): Promise<void> {
    if (delayMs === null) {
      await db.rows(
        `UPDATE webhook_deliveries SET status = 'failed', finished_at = now(), locked_until = NULL, last_status = $2, last_error = $3
          WHERE id = $1 AND status = 'pending'`,
        [d.id, status, error],
      );
    } else {
      await db.rows(
        `UPDATE webhook_deliveries SET next_attempt_at = now() + $4 * interval '1 millisecond', locked_until = NULL, last_status = $2, last_error = $3
          WHERE id = $1 AND status = 'pending'`,
        [d.id, status, error, delayMs],
      );
    }
  }

  /**
   * Notes a failed attempt on the endpoint: its run of failures starts now if it
   * had none; when the run is older than `disableAfterSeconds` the endpoint is
   * disabled (once: answers true only to the statement that disabled it).
   */
  async endpointFailed(db: TenantDb, webhookId: string, disableAfterSeconds: number, reason: string): Promise<boolean> {
    await db.rows(`UPDATE webhooks SET failing_since = now() WHERE id = $1 AND failing_since IS NULL`, [webhookId]);
    const disabled = await db.rows(
      `UPDATE webhooks SET enabled = false, disabled_reason = $3, updated_at = now()
        WHERE id = $1 AND enabled AND failing_since < now() - $2 * interval '1 second'
        RETURNING id`,
      [webhookId, disableAfterSeconds, reason],
    );
    return disabled.length > 0;
  }

  /** When the next pending delivery may be claimed (its retry time or the end of its lease); null when none is pending. */
  async nextDueAt(db: TenantDb): Promise<ExactTime | null> {
    const [row] = await db.rows<{ due_at: ExactTime | null }>(
      `SELECT ${exactTime('min(greatest(next_attempt_at, coalesce(locked_until, next_attempt_at)))')} AS due_at
         FROM webhook_deliveries WHERE status = 'pending'`,
    );
    return row?.due_at ?? null;
  }

  /** Deletes deliveries that ended (succeeded or failed) more than `days` ago. */
  async purgeFinished(db: TenantDb, days: number): Promise<void> {
    await db.rows(`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND finished_at < now() - $1 * interval '1 day'`, [days]);
  }
}
