import { Injectable } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';

/** A webhook as its admins see it (migration Webhooks): never its secrets. */
export interface WebhookRow {
  id: string;
  sectorId: string;
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
  disabledReason: string;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What an admin sets on a webhook. */
export interface WebhookSettings {
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
}

/** One delivery of the endpoint's log. */
export interface WebhookDeliveryRow {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string;
  nextAttemptAt: Date;
  createdAt: Date;
  finishedAt: Date | null;
}

const COLUMNS = `id, sector_id AS "sectorId", url, events, description, enabled, disabled_reason AS "disabledReason",
  failing_since AS "failingSince", created_at AS "createdAt", updated_at AS "updatedAt"`;

const DELIVERY_COLUMNS = `id::text AS id, event_id AS "eventId", event_type AS "eventType", status, attempts, last_status AS "lastStatus",
  last_error AS "lastError", next_attempt_at AS "nextAttemptAt", created_at AS "createdAt", finished_at AS "finishedAt"`;

/**
 * The admin side of `webhooks` and the delivery log of `webhook_deliveries` (the
 * fan-out writes deliveries, src/events; the outbox worker sends them,
 * WebhookDeliveryRepository). Every method takes the tenant's database handle
 * first and a sector: another sector's webhook answers like a missing one.
 */
@Injectable()
export class WebhookRepository {
  /** The sector's webhooks, oldest first. */
  list(db: TenantDb, sectorId: string): Promise<WebhookRow[]> {
    return db.read<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE sector_id = $1 ORDER BY created_at, id`, [sectorId]);
  }

  /** The webhook; with `lock`, locked until the caller's transaction ends (`FOR UPDATE`), so a racing change or delete waits. */
  async find(db: TenantDb, sectorId: string, id: string, lock = false): Promise<WebhookRow | null> {
    const sql = `SELECT ${COLUMNS} FROM webhooks WHERE sector_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`;
    return (await db.rows<WebhookRow>(sql, [sectorId, id]))[0] ?? null;
  }

  /** Serialises the creations of webhooks in a sector for the rest of the caller's transaction (the per-sector bound). */
  async lockSector(tx: TenantDb, sectorId: string): Promise<void> {
    await tx.rows(`SELECT pg_advisory_xact_lock(hashtextextended('webhooks:' || $1, 0))`, [sectorId]);
  }

  async count(tx: TenantDb, sectorId: string): Promise<number> {
    const [row] = await tx.rows<{ n: number }>('SELECT count(*)::int AS n FROM webhooks WHERE sector_id = $1', [sectorId]);
    return row.n;
  }

  async insert(tx: TenantDb, id: string, sectorId: string, settings: WebhookSettings, secretSealed: string): Promise<WebhookRow> {
    const [row] = await tx.rows<WebhookRow>(
      `INSERT INTO webhooks (id, sector_id, url, events, description, enabled, secret_sealed) VALUES ($1, $2, $3, $4, $5, $6, $7)
       RETURNING ${COLUMNS}`,
      [id, sectorId, settings.url, settings.events, settings.description, settings.enabled, secretSealed],
    );
    return row;
  }

  /**
   * Stores the settings; `clear.disabledReason` drops the service's reason for
   * disabling the endpoint, `clear.failingSince` its current run of failures.
   */
  async update(
    tx: TenantDb,
    sectorId: string,
    id: string,
    settings: WebhookSettings,
    clear: { disabledReason: boolean; failingSince: boolean },
  ): Promise<WebhookRow> {
    const [row] = await tx.rows<WebhookRow>(
      `UPDATE webhooks SET url = $3, events = $4, description = $5, enabled = $6, updated_at = now(),
              disabled_reason = CASE WHEN $7 THEN '' ELSE disabled_reason END,
              failing_since = CASE WHEN $8 THEN NULL ELSE failing_since END
        WHERE sector_id = $1 AND id = $2
        RETURNING ${COLUMNS}`,
      [sectorId, id, settings.url, settings.events, settings.description, settings.enabled, clear.disabledReason, clear.failingSince],
    );
    return row;
  }

  /**
   * A new signing secret: the current one becomes the previous one, signing beside
   * it until `previousHours` from now (a previous one still signing is dropped).
   * Answers whether the webhook exists.
   */
  async rotateSecret(tx: TenantDb, sectorId: string, id: string, secretSealed: string, previousHours: number): Promise<boolean> {
    const rows = await tx.rows(
      `UPDATE webhooks SET previous_secret_sealed = secret_sealed, previous_secret_expires_at = now() + $4 * interval '1 hour',
              secret_sealed = $3, updated_at = now()
        WHERE sector_id = $1 AND id = $2
        RETURNING id`,
      [sectorId, id, secretSealed, previousHours],
    );
    return rows.length > 0;
  }

  /** Deletes the webhook (its deliveries go with it); the deleted row, or null when there was none. */
  async delete(tx: TenantDb, sectorId: string, id: string): Promise<WebhookRow | null> {
    return (await tx.rows<WebhookRow>(`DELETE FROM webhooks WHERE sector_id = $1 AND id = $2 RETURNING ${COLUMNS}`, [sectorId, id]))[0] ?? null;
  }

  /** Up to `limit` deliveries of the webhook, newest first, below `beforeId` when given, in `status` when given. */
  deliveries(db: TenantDb, webhookId: string, filter: { status?: string; beforeId?: string }, limit: number): Promise<WebhookDeliveryRow[]> {
    return db.read<WebhookDeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
        WHERE webhook_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::bigint IS NULL OR webhook_deliveries.id < $3)
        ORDER BY webhook_deliveries.id DESC
        LIMIT $4`,
      [webhookId, filter.status ?? null, filter.beforeId ?? null, limit],
    );
  }
}
