import { Injectable } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';
import { ExactTime, exactTime } from '../outbox/outbox-pending.repository';
import { OutboxChannel, OutboxEntity } from './outbox.entity';

export interface NewOutboxRow {
  id: string;
  channel: OutboxChannel;
  tag: string;
  recipient: string;
  subject: string;
  bodyText: string;
  bodyHtml: string;
}

interface OutboxRow {
  id: string;
  channel: OutboxChannel;
  tag: string;
  recipient: string;
  subject: string;
  body_text: string;
  body_html: string;
  status: OutboxEntity['status'];
  attempts: number;
  next_attempt_at: Date;
  locked_until: Date | null;
  last_error: string;
  created_at: Date;
  sent_at: Date | null;
}

function toEntity(row: OutboxRow): OutboxEntity {
  return Object.assign(new OutboxEntity(), {
    id: row.id,
    channel: row.channel,
    tag: row.tag,
    recipient: row.recipient,
    subject: row.subject,
    bodyText: row.body_text,
    bodyHtml: row.body_html,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lockedUntil: row.locked_until,
    lastError: row.last_error,
    createdAt: row.created_at,
    sentAt: row.sent_at,
  });
}

/**
 * A tenant's outbox. Times come from the database clock (`now()`), so several
 * instances with skewed clocks agree on what is due and whose lease expired.
 */
@Injectable()
export class OutboxRepository {
  /** Queues a message, due at once; runs in the caller's transaction when `db` is one. */
  async insert(db: TenantDb, row: NewOutboxRow): Promise<void> {
    await db.manager.query(
      `INSERT INTO outbox (id, channel, tag, recipient, subject, body_text, body_html) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [row.id, row.channel, row.tag, row.recipient, row.subject, row.bodyText, row.bodyHtml],
    );
  }

  /**
   * Claims up to `limit` due rows in one statement: a lease of `leaseMs` and one
   * more attempt each. `SKIP LOCKED` and the lease keep two workers (in this or
   * another instance) from claiming the same row; a worker that dies mid-batch
   * leaves rows that become claimable again when the lease runs out.
   */
  async claimDue(db: TenantDb, limit: number, leaseMs: number): Promise<OutboxEntity[]> {
    // For an UPDATE, TypeORM's postgres driver answers [rows, affected count].
    const [rows]: [OutboxRow[], number] = await db.manager.query(
      `UPDATE outbox
          SET locked_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1
        WHERE id IN (
          SELECT id FROM outbox
           WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
           ORDER BY created_at
           LIMIT $1
           FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [limit, leaseMs],
    );
    return rows.map(toEntity).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  /** Delivered: the lease ends, and the bodies (codes, links) are no longer kept. */
  async markSent(db: TenantDb, id: string): Promise<void> {
    await db.manager.query(
      `UPDATE outbox SET status = 'sent', sent_at = now(), locked_until = NULL, body_text = '', body_html = ''
        WHERE id = $1 AND status = 'pending'`,
      [id],
    );
  }

  /** Not delivered: the lease ends and the next attempt waits `delayMs`. */
  async markFailed(db: TenantDb, id: string, delayMs: number, error: string): Promise<void> {
    await db.manager.query(
      `UPDATE outbox SET next_attempt_at = now() + $2 * interval '1 millisecond', last_error = $3, locked_until = NULL
        WHERE id = $1 AND status = 'pending'`,
      [id, delayMs, error],
    );
  }

  /** Gives claimed rows back untried (shutdown, or a batch that ran out of time): no attempt is counted. */
  async release(db: TenantDb, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await db.manager.query(
      `UPDATE outbox SET locked_until = NULL, attempts = greatest(attempts - 1, 0) WHERE id = ANY($1::uuid[]) AND status = 'pending'`,
      [ids],
    );
  }

  /**
   * When the next pending row may be claimed (its retry time, or the end of its
   * lease), as exact text; null when nothing is pending.
   */
  async nextDueAt(db: TenantDb): Promise<ExactTime | null> {
    const [row]: Array<{ due_at: ExactTime | null }> = await db.manager.query(
      `SELECT ${exactTime('min(greatest(next_attempt_at, coalesce(locked_until, next_attempt_at)))')} AS due_at
         FROM outbox WHERE status = 'pending'`,
    );
    return row?.due_at ?? null;
  }

  /** Deletes rows delivered more than `days` ago. */
  async purgeSent(db: TenantDb, days: number): Promise<void> {
    await db.manager.query(`DELETE FROM outbox WHERE status = 'sent' AND sent_at < now() - $1 * interval '1 day'`, [days]);
  }

  find(db: TenantDb, id: string): Promise<OutboxEntity | null> {
    return db.manager.getRepository(OutboxEntity).findOneBy({ id });
  }
}
