import { MailerService } from '@nestjs-modules/mailer';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SEND_TIMEOUT_MS } from '../outbox/outbox.worker';
import { OutboxEntity } from './outbox.entity';


/**
 * Hands one outbox row to the outside world: mail through the MailerService
 * (SMTP_URL, or a stream transport whose RFC 822 output is written to
 * DATA_DIR/outbox/<id>.eml), SMS as `POST {to, body}` to SMS_WEBHOOK_URL (or
 * DATA_DIR/outbox/<id>.sms.json; redirects are not followed). Throws when the message was not accepted.
 * Logs name the recipient and subject, never a body: bodies carry codes and links.
 */
@Injectable()
export class OutboxDelivery {
  private readonly logger = new Logger('Mail');
  private readonly outboxDir: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly mailer: MailerService,
  ) {
    this.outboxDir = join(config.dataDir, 'outbox');
  }

  deliver(row: OutboxEntity): Promise<void> {
    return row.channel === 'sms' ? this.sendSms(row) : this.sendMail(row);
  }

  private async sendMail(row: OutboxEntity): Promise<void> {
    const info: { message?: Buffer | string } = await this.mailer.sendMail({
      to: row.recipient,
      subject: row.subject,
      text: row.bodyText,
      ...(row.bodyHtml ? { html: row.bodyHtml } : {}),
      // Stable across retries, so a receiver can recognise a duplicate of a mail
      // whose acceptance the worker could not record.
      messageId: `<${row.id}@${this.senderDomain()}>`,
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    if (this.config.smtpUrl) {
      this.logger.debug(`Mail ${row.id} (${row.tag}) sent to ${row.recipient}`);
      return;
    }
    const file = await this.writeOutboxFile(`${row.id}.eml`, info.message ?? '');
    this.logger.log(`Mail (${row.tag}) to ${row.recipient}, subject "${loggableSubject(row.subject)}": no SMTP_URL, written to ${file}`);
  }

  private async sendSms(row: OutboxEntity): Promise<void> {
    const payload = JSON.stringify({ to: row.recipient, body: row.bodyText });
    const url = this.config.smsWebhookUrl;
    if (!url) {
      const file = await this.writeOutboxFile(`${row.id}.sms.json`, payload + '\n');
      this.logger.log(`SMS (${row.tag}) to ${row.recipient}: no SMS_WEBHOOK_URL, written to ${file}`);
      return;
    }
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.config.smsWebhookAuthorization ? { authorization: this.config.smsWebhookAuthorization } : {}) },
      body: payload,
      // A redirect is never followed (the message and the Authorization header go to SMS_WEBHOOK_URL only): a 3xx is a failed delivery, retried like the others.
      redirect: 'manual',
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (!res.ok) throw new Error(`SMS gateway answered HTTP ${res.status}${res.status >= 300 && res.status < 400 ? ' (a redirect, not followed)' : ''}`);
    this.logger.debug(`SMS ${row.id} (${row.tag}) sent to ${row.recipient}`);
  }

  /** Written under a temporary name and renamed, so a reader never sees half a message; a retry overwrites. */
  private async writeOutboxFile(name: string, content: Buffer | string): Promise<string> {
    await mkdir(this.outboxDir, { recursive: true, mode: 0o700 });
    const file = join(this.outboxDir, name);
    const partial = `${file}.partial`;
    await writeFile(partial, content, { mode: 0o600 });
    await rename(partial, file);
    return file;
  }

  private senderDomain(): string {
    const match = /@([^\s@>]+)>?\s*$/.exec(this.config.mailFrom);
    return match ? match[1] : 'localhost';
  }
}

/**
 * A subject as it may appear in a log line: a sector's template may put the
 * one-time code in the subject, so runs of four or more digits are masked.
 */
export function loggableSubject(subject: string): string {
  return subject.replace(/\d{4,}/g, (digits) => '•'.repeat(digits.length));
}

