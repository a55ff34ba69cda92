import { Injectable } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';
import { AuditEntity, AuditRow } from './audit-event';

/** What a listing may be narrowed to. */
export interface AuditFilter {
  from?: Date;
  to?: Date;
  /** An actor id (user id or API token id). */
  actor?: string;
  /** A target id. */
  target?: string;
  type?: string;
}

interface StoredRow {
  id: string;
  occurred_at: Date;
  sector_id: string;
  type: string;
  outcome: string;
  reason: string;
  actor_kind: string;
  actor_id: string;
  target_kind: string;
  target_id: string;
  client_ip: string;
  request_id: string;
  details: Record<string, unknown>;
}

/** The `audit_events` table of a tenant: append-only but for the retention purge. */
@Injectable()
export class AuditRepository {
  async append(db: TenantDb, e: AuditRow): Promise<void> {
    await db.rows(
      `INSERT INTO audit_events (sector_id, type, outcome, reason, actor_kind, actor_id, target_kind, target_id, client_ip, request_id, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb)`,
      [e.sectorId, e.type, e.outcome, e.reason, e.actorKind, e.actorId, e.targetKind, e.targetId, e.clientIp, e.requestId, JSON.stringify(e.details)],
    );
  }

  /** Newest first, below `beforeId` when given; `limit` rows at most. */
  async list(db: TenantDb, sectorId: string, filter: AuditFilter, beforeId: string | undefined, limit: number): Promise<AuditEntity[]> {
    const where = ['sector_id = $1'];
    const params: unknown[] = [sectorId];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (beforeId !== undefined) add('id < ?::bigint', beforeId);
    if (filter.from) add('occurred_at >= ?', filter.from);
    if (filter.to) add('occurred_at < ?', filter.to);
    if (filter.actor !== undefined) add('actor_id = ?', filter.actor);
    if (filter.target !== undefined) add('target_id = ?', filter.target);
    if (filter.type !== undefined) add('type = ?', filter.type);
    params.push(limit);
    const rows = await db.rows<StoredRow>(
      `SELECT id::text AS id, occurred_at, sector_id, type, outcome, reason, actor_kind, actor_id, target_kind, target_id, client_ip, request_id, details
         FROM audit_events WHERE ${where.join(' AND ')} ORDER BY audit_events.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({
      id: r.id,
      occurredAt: new Date(r.occurred_at),
      sectorId: r.sector_id,
      type: r.type,
      outcome: r.outcome,
      reason: r.reason,
      actorKind: r.actor_kind,
      actorId: r.actor_id,
      targetKind: r.target_kind,
      targetId: r.target_id,
      clientIp: r.client_ip,
      requestId: r.request_id,
      details: r.details,
    }));
  }

  /**
   * Deletes the events older than their sector's AuditRetentionDays (365 days for
   * a sector whose settings are gone); answers how many went.
   */
  async purgeExpired(db: TenantDb): Promise<number> {
    const rows = await db.rows(
      `DELETE FROM audit_events e
        WHERE e.occurred_at < now() - make_interval(days => COALESCE(
                (SELECT s.audit_retention_days FROM sector_settings s WHERE s.sector_id = e.sector_id), 365)::int)
        RETURNING 1`,
    );
    return rows.length;
  }
}
