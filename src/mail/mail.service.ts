import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../common/errors/domain-error';
import { TenantDb } from '../tenancy/tenant-db';
import { OutboxRepository } from './outbox.repository';
import { OutboxSignal } from '../outbox/outbox-signal';

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
export class MailService {
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly signal: OutboxSignal,
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

  /** Called after the caller's transaction committed: the outbox worker looks at the tenant (see OutboxSignal.kick). */
  kick(tenantId: string): void {
    this.signal.kick(tenantId);
  }
}
