import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { OutboxSignal } from '../outbox/outbox-signal';
import { TenantDb } from '../tenancy/tenant-db';
import { EventBus } from './event-bus';
import { EventOutboxRepository } from './event-outbox.repository';
import { ServiceEvent, ServiceEventType } from './service-event';

/** A new event id: `msg_` and 16 random bytes (base64url), the `webhook-id` of its deliveries. */
function newEventId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/** The exact body of a webhook delivery. */
function bodyOf(event: ServiceEvent): string {
  return JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data });
}

/**
 * Announces what happened. `emit` takes the handle of the change's transaction:
 * the deliveries to the sector's webhooks are written by that transaction (so a
 * rolled-back change sends nothing and a committed one cannot be lost), and
 * after its commit the outbox worker is woken and the in-process subscribers
 * hear of it.
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly outbox: EventOutboxRepository,
    private readonly signal: OutboxSignal,
    private readonly bus: EventBus,
  ) {}

  /**
   * `data` holds the subject's ids and what changed, never a secret; the tenant
   * and sector are added. With `webhookId`, only that endpoint gets it (a test
   * event). Answers the event.
   */
  async emit(db: TenantDb, sectorId: string, type: ServiceEventType, data: Record<string, unknown>, webhookId?: string): Promise<ServiceEvent> {
    const event: ServiceEvent = {
      id: newEventId(),
      type,
      timestamp: new Date().toISOString(),
      data: { tenantID: db.tenant.id, sectorID: sectorId, ...data },
    };
    const queued = await this.outbox.fanOut(db, sectorId, event.id, type, bodyOf(event), webhookId);
    if (queued > 0 || this.bus.active) {
      const tenantId = db.tenant.id;
      db.afterCommit(() => {
        if (queued > 0) this.signal.kick(tenantId);
        this.bus.publish(event);
      });
    }
    return event;
  }
}
