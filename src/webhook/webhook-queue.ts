import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { SYSTEM_ACTOR } from '../audit/audit-event';
import { SecretBox } from '../common/crypto/secret-box';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Metrics } from '../metrics/metrics.service';
import { ExactTime } from '../outbox/outbox-pending.repository';
import { OutboxQueue } from '../outbox/outbox-queue';
import { OutboxSignal } from '../outbox/outbox-signal';
import { OutboxWorker } from '../outbox/outbox.worker';
import { TenantDb } from '../tenancy/tenant-db';
import { ClaimedDelivery, WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WEBHOOK_SECRET_SEAL } from './webhook-secret';
import { AttemptResult, WEBHOOK_TIMEOUT_MS, WebhookSender } from './webhook-sender';

/** Deliveries claimed per statement. */
const BATCH_SIZE = 50;
/** Deliveries this instance has in flight at once, all tenants together. */
const MAX_IN_FLIGHT = 128;
/** Deliveries one endpoint has in flight at once, all instances together (so a slow endpoint cannot take every sender). */
export const PER_ENDPOINT_IN_FLIGHT = 16;
/** A claimed delivery is held this long: its attempt ends within WEBHOOK_TIMEOUT_MS, its record soon after. */
const LEASE_MS = WEBHOOK_TIMEOUT_MS + 20_000;
/** Ended deliveries stay in the delivery log this long. */
const DELIVERY_RETENTION_DAYS = 30;

/** The wait before retry `n` (1-based) per the schedule, ±10 % jitter; null once the schedule is spent. */
export function retryDelay(schedule: readonly number[], attempt: number, random: () => number = Math.random): number | null {
  const wait = schedule[attempt - 1];
  if (wait === undefined) return null;
  return Math.max(1, Math.round(wait * (0.9 + 0.2 * random())));
}

/**
 * Webhook deliveries as the outbox worker sends them: each claimed delivery is
 * POSTed (WebhookSender); a 2xx ends it, anything else schedules the next attempt
 * on WEBHOOK_RETRY_SCHEDULE and, once that is spent, marks it failed. An endpoint
 * whose deliveries have failed for WEBHOOK_DISABLE_AFTER_SECONDS (5 days) is
 * disabled, with a `webhook.disabled` audit event. A delivery to a disabled
 * endpoint fails at once (a test event is still sent).
 *
 * Sends run in the background: a pass of the outbox worker only claims what this
 * instance has room for (MAX_IN_FLIGHT, and PER_ENDPOINT_IN_FLIGHT per endpoint)
 * and returns, so an endpoint that never answers holds neither the tenant's mail
 * nor other tenants' passes. When a claimed batch has been tried, the tenant is
 * signalled again for what is left.
 */
@Injectable()
export class WebhookQueue implements OutboxQueue, OnModuleInit, OnModuleDestroy {
  readonly name = 'webhooks';
  private readonly logger = new Logger('Webhooks');
  private inFlight = 0;
  private readonly batches = new Set<Promise<void>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly sender: WebhookSender,
    private readonly box: SecretBox,
    private readonly audit: AuditService,
    private readonly worker: OutboxWorker,
    private readonly signal: OutboxSignal,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.worker.register(this);
  }

  /** Waits for the attempts in flight (each ends within WEBHOOK_TIMEOUT_MS), before the pools close. */
  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([...this.batches]);
  }

  /** Claims what there is room for and starts sending it; returns without waiting for the answers. */
  async drain(db: TenantDb, stopping: () => boolean): Promise<void> {
    while (!stopping()) {
      const room = Math.min(BATCH_SIZE, MAX_IN_FLIGHT - this.inFlight);
      // No room: the rows stay due, and the next pass (the signal after a batch, or the poll) takes them.
      if (room <= 0) return;
      const batch = await this.deliveries.claimDue(db, room, LEASE_MS, PER_ENDPOINT_IN_FLIGHT);
      if (batch.length === 0) return;
      this.inFlight += batch.length;
      const sent = Promise.all(batch.map((d) => this.deliverOne(db, d).finally(() => this.inFlight--))).then(
        () => this.signal.kick(db.tenant.id),
        (err: unknown) => this.logger.error(`Webhook deliveries of tenant ${db.tenant.id} not recorded: ${err instanceof Error ? err.message : String(err)}`),
      );
      this.batches.add(sent);
      void sent.finally(() => this.batches.delete(sent));
      if (batch.length < room) return;
    }
  }

  nextDueAt(db: TenantDb): Promise<ExactTime | null> {
    return this.deliveries.nextDueAt(db);
  }

  purge(db: TenantDb): Promise<void> {
    return this.deliveries.purgeFinished(db, DELIVERY_RETENTION_DAYS);
  }

  /** Sends one delivery and records how it went. */
  private async deliverOne(db: TenantDb, d: ClaimedDelivery): Promise<void> {
    const result = await this.attempt(d);
    this.metrics.outboxDeliveries.inc({ channel: 'webhook', outcome: result.ok ? 'sent' : 'failed' });
    if (result.ok) {
      await this.deliveries.succeeded(db, d, result.status ?? 200);
      return;
    }
    const delay = d.enabled || d.eventType === 'webhook.test' ? retryDelay(this.config.webhookRetryScheduleMs, d.attempts) : null;
    await db.transaction(async (tx) => {
      await this.deliveries.attemptFailed(tx, d, result.status, result.error, delay);
      if (!d.enabled) return;
      const days = Math.round(this.config.webhookDisableAfterSeconds / 86_400);
      const reason = `Every delivery failed for ${days >= 1 ? `${days} days` : `${this.config.webhookDisableAfterSeconds} seconds`}.`;
      if (await this.deliveries.endpointFailed(tx, d.webhookId, this.config.webhookDisableAfterSeconds, reason)) {
        await this.audit.record(tx, {
          type: 'webhook.disabled',
          sectorId: d.sectorId,
          actor: SYSTEM_ACTOR,
          target: { kind: 'webhook', id: d.webhookId },
          details: { reason: 'failing' },
        });
        this.logger.warn(`Webhook ${d.webhookId} of tenant ${db.tenant.id} disabled: ${reason}`);
      }
    });
    const next = delay === null ? 'given up' : `next attempt in ${delay} ms`;
    this.logger.warn(`Webhook delivery ${d.eventId} (${d.eventType}) of tenant ${db.tenant.id} to webhook ${d.webhookId} failed (attempt ${d.attempts}: ${result.error}); ${next}`);
  }

  private async attempt(d: ClaimedDelivery): Promise<AttemptResult> {
    if (!d.enabled && d.eventType !== 'webhook.test') return { ok: false, status: null, error: 'The endpoint is disabled.' };
    let secrets: string[];
    try {
      secrets = [d.secretSealed, ...(d.previousSecretSealed ? [d.previousSecretSealed] : [])].map((sealed) => this.box.open(WEBHOOK_SECRET_SEAL, sealed).toString('utf8'));
    } catch {
      return { ok: false, status: null, error: 'The signing secret does not open under the configured master keys.' };
    }
    return this.sender.send({ url: d.url, eventId: d.eventId, body: d.payload, secrets });
  }
}
