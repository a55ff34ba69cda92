import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Metrics } from '../metrics/metrics.service';
import { describeDeliveryError } from '../outbox/delivery-error';
import { ExactTime } from '../outbox/outbox-pending.repository';
import { OutboxQueue } from '../outbox/outbox-queue';
import { BATCH_BUDGET_MS, LEASE_MS, OutboxWorker } from '../outbox/outbox.worker';
import { TenantDb } from '../tenancy/tenant-db';
import { OutboxDelivery } from './outbox-delivery';
import { OutboxEntity } from './outbox.entity';
import { OutboxRepository } from './outbox.repository';

/** Rows claimed per statement. */
const BATCH_SIZE = 20;
/** Delivered rows (bodies already cleared) are kept this long, then purged by the sweep. */
const SENT_RETENTION_DAYS = 7;

/**
 * Mail and SMS in the tenant's `outbox` table, as the outbox worker delivers
 * them: a failed delivery is retried with exponential backoff
 * (MAIL_RETRY_BASE_MS doubling up to MAIL_RETRY_MAX_MS) and never dropped.
 */
@Injectable()
export class MailQueue implements OutboxQueue, OnModuleInit {
  readonly name = 'mail';
  private readonly logger = new Logger('OutboxWorker');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly outbox: OutboxRepository,
    private readonly delivery: OutboxDelivery,
    private readonly worker: OutboxWorker,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.worker.register(this);
  }

  async drain(db: TenantDb, stopping: () => boolean): Promise<void> {
    while (!stopping()) {
      const batch = await this.outbox.claimDue(db, BATCH_SIZE, LEASE_MS);
      const deadline = Date.now() + BATCH_BUDGET_MS;
      for (let i = 0; i < batch.length; i++) {
        if (stopping() || Date.now() > deadline) {
          await this.outbox.release(db, batch.slice(i).map((row) => row.id));
          return;
        }
        await this.deliverOne(db, batch[i]);
      }
      if (batch.length < BATCH_SIZE) return;
    }
  }

  nextDueAt(db: TenantDb): Promise<ExactTime | null> {
    return this.outbox.nextDueAt(db);
  }

  purge(db: TenantDb): Promise<void> {
    return this.outbox.purgeSent(db, SENT_RETENTION_DAYS);
  }

  private async deliverOne(db: TenantDb, row: OutboxEntity): Promise<void> {
    let error: string | undefined;
    try {
      await this.delivery.deliver(row);
    } catch (err) {
      error = describeDeliveryError(err);
    }
    this.metrics.outboxDeliveries.inc({ channel: row.channel, outcome: error === undefined ? 'sent' : 'failed' });
    if (error === undefined) {
      await this.outbox.markSent(db, row.id);
      return;
    }
    const delay = this.backoff(row.attempts);
    await this.outbox.markFailed(db, row.id, delay, error);
    this.logger.warn(
      `${row.channel === 'sms' ? 'SMS' : 'Mail'} ${row.id} (${row.tag}) of tenant ${db.tenant.id} to ${row.recipient} ` +
        `not delivered (attempt ${row.attempts}: ${error}); retrying in ${delay} ms`,
    );
  }

  /** MAIL_RETRY_BASE_MS · 2^(attempt-1), at most MAIL_RETRY_MAX_MS. */
  private backoff(attempt: number): number {
    const exponent = Math.min(Math.max(attempt, 1) - 1, 30);
    return Math.min(this.config.mailRetryBaseMs * 2 ** exponent, this.config.mailRetryMaxMs);
  }
}
