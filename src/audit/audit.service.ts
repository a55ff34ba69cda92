import { Injectable, Logger } from '@nestjs/common';
import { requestContext } from '../common/http/request-context';
import { TenantDb } from '../tenancy/tenant-db';
import { EventsService } from '../events/events.service';
import { AuditEventInput, SYSTEM_ACTOR } from './audit-event';
import { AuditRepository } from './audit.repository';
import { announcementOf } from './announced-events';

/**
 * Appends audit events. `record` takes the caller's transaction handle: an event
 * is written with the change it describes, so it exists exactly when the change
 * does. Request id, client address and (by default) the actor come from the
 * request context. A change that is also a service event (src/audit/announced-events.ts)
 * is announced with it, in the same transaction (webhooks, extensions).
 */
@Injectable()
export class AuditService {
  private readonly logger = new Logger('Audit');

  constructor(
    private readonly repository: AuditRepository,
    private readonly events: EventsService,
  ) {}

  async record(tx: TenantDb, event: AuditEventInput): Promise<void> {
    const ctx = requestContext.getStore();
    // Outside any request (bootstrap, commands, scheduled jobs) the actor is the system.
    const actor = event.actor ?? ctx?.actor ?? (ctx ? { kind: 'anonymous' as const, id: '' } : SYSTEM_ACTOR);
    await this.repository.append(tx, {
      sectorId: event.sectorId,
      type: event.type,
      outcome: event.outcome ?? 'success',
      reason: event.reason ?? '',
      actorKind: actor.kind,
      actorId: actor.id,
      targetKind: event.target?.kind ?? '',
      targetId: event.target?.id ?? '',
      clientIp: ctx?.clientIp ?? '',
      requestId: ctx?.requestId ?? '',
      details: event.details ?? {},
    });
    const announcement = announcementOf(event);
    if (announcement) await this.events.emit(tx, event.sectorId, announcement.type, announcement.data);
  }

  /**
   * For events with no change to join (a refused sign-in): appended in their own
   * statement; a failure to append is logged and never replaces the caller's answer.
   */
  async recordAlone(db: TenantDb, event: AuditEventInput): Promise<void> {
    try {
      await this.record(db, event);
    } catch (err) {
      this.logger.error(`Could not append a ${event.type} audit event: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
