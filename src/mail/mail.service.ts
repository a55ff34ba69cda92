import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../common/errors/domain-error';
import { TenantDb } from '../tenancy/tenant-db';
import { describeDeliveryError } from './outbox-delivery';
import { OutboxPendingRepository } from './outbox-pending.repository';
import { OutboxRepository } from './outbox.repository';
import { OutboxWorker } from './outbox.worker';

/** A rendered mail (see renderMail) on its way to one recipient. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** What it is for (`invite`, `otp`, `password-reset`, ...): shown in logs and kept in the outbox. */
  tag: string;
}

/** A rendered SMS (see renderSms) on its way to one phone number. */
export interface SmsMessage {
  to: string;
  body: string;
  tag: string;
}

const MAX_SUBJECT = 998;
const MAX_BODY = 1_000_000;
const MAX_SMS = 1_600;

function check(ok: boolean, field: string, description: string): void {
  if (!ok) throw DomainError.invalidField(field, description);
}

/** One line of at most `max` characters, not empty. */
function isLine(value: string, max: number): boolean {
  return value.trim() !== '' && value.length <= max && !/[\r\n]/.test(value);
}

/**
 * Queues mail and SMS in the tenant's durable outbox. A caller writes the message
 * in the same transaction as the change that caused it (an invitation, a code, a
 * reset), so the message exists exactly when the change does; after the commit it
 * calls `kick`, which records in the main database that the tenant has mail (so
 * the workers of every instance find it) and wakes this instance's worker, which
 * sends it with retries.
 */
@Injectable()
export class MailService implements OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  /** Hints being written: waited for at shutdown, before the main pool closes. */
  private readonly kicking = new Set<Promise<void>>();

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly pending: OutboxPendingRepository,
    private readonly worker: OutboxWorker,
  ) {}

  /** Writes the mail to the tenant's outbox inside the caller's transaction (`db` from `db.transaction`); returns the outbox id. */
  async enqueueMail(db: TenantDb, message: MailMessage): Promise<string> {
    check(isLine(message.to, 320) && message.to.includes('@'), 'to', 'must be one email address');
    check(isLine(message.subject, MAX_SUBJECT), 'subject', `must be one non-empty line of at most ${MAX_SUBJECT} characters`);
    check(message.text.length <= MAX_BODY && (message.html ?? '').length <= MAX_BODY, 'text', 'is too long');
    check(isLine(message.tag, 64), 'tag', 'must be a short name');
    const id = randomUUID();
    await this.outbox.insert(db, {
      id,
      channel: 'email',
      tag: message.tag,
      recipient: message.to.trim(),
      subject: message.subject,
      bodyText: message.text,
      bodyHtml: message.html ?? '',
    });
    return id;
  }

  /** Writes the SMS to the tenant's outbox inside the caller's transaction; returns the outbox id. */
  async enqueueSms(db: TenantDb, message: SmsMessage): Promise<string> {
    check(isLine(message.to, 64), 'to', 'must be one phone number');
    check(message.body.trim() !== '' && message.body.length <= MAX_SMS, 'body', `must be 1 to ${MAX_SMS} characters`);
    check(isLine(message.tag, 64), 'tag', 'must be a short name');
    const id = randomUUID();
    await this.outbox.insert(db, {
      id,
      channel: 'sms',
      tag: message.tag,
      recipient: message.to.trim(),
      subject: '',
      bodyText: message.body,
      bodyHtml: '',
    });
    return id;
  }

  /**
   * Called after the caller's transaction committed: marks the tenant's outbox as
   * holding mail due now, then has this instance's worker look at it. Returns at
   * once and never throws (the caller's change is committed): a hint that cannot
   * be written is logged, and the mail is still sent by this worker's pass, or
   * else found by the periodic sweep.
   */
  kick(tenantId: string): void {
    const kicked = this.pending
      .touch(tenantId)
      .catch((err: unknown) => this.logger.warn(`Outbox hint of tenant ${tenantId} not written: ${describeDeliveryError(err)}`))
      .then(() => this.worker.kick(tenantId));
    this.kicking.add(kicked);
    void kicked.finally(() => this.kicking.delete(kicked));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.kicking]);
  }
}
