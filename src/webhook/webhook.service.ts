import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AuditService } from '../audit/audit.service';
import { SecretBox } from '../common/crypto/secret-box';
import { DomainError, FieldViolation } from '../common/errors/domain-error';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { decodeIdCursor, encodeIdCursor, paging } from '../common/wire/paging';
import { isUuid } from '../common/wire/wire';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { EventsService } from '../events/events.service';
import { ALL_EVENTS, isServiceEventType } from '../events/service-event';
import { SectorScope } from '../settings/sector-scope';
import {
  CreateWebhookDto,
  CreateWebhookResponse,
  DeleteWebhookResponse,
  ListWebhookDeliveriesQuery,
  ListWebhookDeliveriesResponse,
  ListWebhooksResponse,
  MAX_WEBHOOKS_PER_SECTOR,
  RotateWebhookSecretResponse,
  TestWebhookResponse,
  UpdateWebhookDto,
  WebhookResponse,
} from './dto/webhook.dto';
import { toCreateWebhookResponse, toWebhookDeliveryResponse, toWebhookResponse } from './webhook.mapper';
import { WebhookRepository, WebhookRow, WebhookSettings } from './webhook.repository';
import { newWebhookSecret, PREVIOUS_SECRET_HOURS, WEBHOOK_SECRET_SEAL } from './webhook-secret';
import { webhookUrlProblem } from './webhook-url';

/** The tag of the delivery log's cursors (src/common/wire/paging.ts). */
const DELIVERY_CURSOR = 'd';

const notFound = () => DomainError.notFound(Reason.WEBHOOK_NOT_FOUND, 'No such webhook in this sector.');

/**
 * The event types an endpoint subscribes to, from what an admin sent: known
 * types, or `*` alone; duplicates dropped, the order kept. An unknown type is
 * INVALID_ARGUMENT with a violation on each such item, naming it.
 */
export function subscribedEvents(events: readonly string[]): string[] {
  const unknown: FieldViolation[] = events.flatMap((type, i) =>
    type === ALL_EVENTS || isServiceEventType(type) ? [] : [{ field: `events[${i}]`, description: `unknown event type "${type}" (docs/api.md, Webhooks, lists them)` }],
  );
  if (unknown.length > 0) throw DomainError.invalidArgument(`${unknown[0].field}: ${unknown[0].description}`, unknown);
  const unique = [...new Set(events)];
  if (unique.length === 0) throw DomainError.invalidField('events', 'must name at least one event type, or be ["*"]');
  if (unique.includes(ALL_EVENTS) && unique.length > 1) throw DomainError.invalidField('events', '"*" (every event) stands alone: send ["*"] or a list of event types');
  return unique;
}

/** The origin of an endpoint URL, what the audit trail records of it (a path or query may hold the receiver's own token). */
function originOf(url: string): string {
  return new URL(url).origin;
}

/**
 * A sector's webhooks as its signed-in admins manage them: https endpoints that
 * receive the service's events (Standard Webhooks), each with a signing secret
 * sealed at rest and shown only when it is made (creation, rotation). Every change
 * is audited in its own transaction.
 */
@Injectable()
export class WebhookService {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly audit: AuditService,
    private readonly events: EventsService,
    private readonly box: SecretBox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(scope: SectorScope): Promise<ListWebhooksResponse> {
    return { webhooks: (await this.webhooks.list(scope.db, scope.route.sectorId)).map(toWebhookResponse) };
  }

  async create(scope: SectorScope, dto: CreateWebhookDto): Promise<CreateWebhookResponse> {
    const settings: WebhookSettings = {
      url: await this.checkedUrl(dto.url),
      events: subscribedEvents(dto.events),
      description: dto.description ?? '',
      enabled: dto.enabled ?? true,
    };
    const sectorId = scope.route.sectorId;
    const secret = newWebhookSecret();
    const row = await scope.db.transaction(async (tx) => {
      await this.webhooks.lockSector(tx, sectorId);
      if ((await this.webhooks.count(tx, sectorId)) >= MAX_WEBHOOKS_PER_SECTOR) {
        throw new DomainError(ErrorCode.RESOURCE_EXHAUSTED, Reason.WEBHOOK_LIMIT_REACHED, `A sector holds at most ${MAX_WEBHOOKS_PER_SECTOR} webhooks.`, {
          metadata: { limit: String(MAX_WEBHOOKS_PER_SECTOR) },
        });
      }
      const created = await this.webhooks.insert(tx, randomUUID(), sectorId, settings, this.box.seal(WEBHOOK_SECRET_SEAL, secret));
      await this.audit.record(tx, {
        type: 'webhook.created',
        sectorId,
        target: { kind: 'webhook', id: created.id },
        details: { origin: originOf(created.url), events: created.events, enabled: created.enabled },
      });
      return created;
    });
    return toCreateWebhookResponse(row, secret);
  }

  /**
   * Sets the fields present in `dto`; the others keep their stored values.
   * Enabling an endpoint again clears the service's reason for disabling it and
   * its run of failures; a new URL starts a new run too.
   */
  async update(scope: SectorScope, id: string, dto: UpdateWebhookDto): Promise<WebhookResponse> {
    if (!isUuid(id)) throw notFound();
    const url = dto.url === undefined ? undefined : await this.checkedUrl(dto.url);
    const events = dto.events === undefined ? undefined : subscribedEvents(dto.events);
    const sectorId = scope.route.sectorId;
    const row = await scope.db.transaction(async (tx) => {
      const before = await this.webhooks.find(tx, sectorId, id, true);
      if (!before) throw notFound();
      const after: WebhookSettings = {
        url: url ?? before.url,
        events: events ?? before.events,
        description: dto.description ?? before.description,
        enabled: dto.enabled ?? before.enabled,
      };
      const fields = changedFields(before, after);
      // Enabled again: the service's reason for disabling it is moot, and its failures start over (as they do at a new URL).
      const reenabled = after.enabled && !before.enabled;
      const saved = await this.webhooks.update(tx, sectorId, id, after, { disabledReason: reenabled, failingSince: reenabled || after.url !== before.url });
      await this.audit.record(tx, {
        type: 'webhook.updated',
        sectorId,
        target: { kind: 'webhook', id },
        details: { fields, ...(fields.includes('url') ? { origin: originOf(after.url) } : {}), ...(fields.includes('enabled') ? { enabled: after.enabled } : {}) },
      });
      return saved;
    });
    return toWebhookResponse(row);
  }

  async delete(scope: SectorScope, id: string): Promise<DeleteWebhookResponse> {
    const sectorId = scope.route.sectorId;
    const deleted =
      isUuid(id) &&
      (await scope.db.transaction(async (tx) => {
        const row = await this.webhooks.delete(tx, sectorId, id);
        if (!row) return false;
        await this.audit.record(tx, { type: 'webhook.deleted', sectorId, target: { kind: 'webhook', id }, details: { origin: originOf(row.url) } });
        return true;
      }));
    if (!deleted) throw notFound();
    return { id };
  }

  /** A new signing secret, shown only here; the old one signs beside it for PREVIOUS_SECRET_HOURS. */
  async rotateSecret(scope: SectorScope, id: string): Promise<RotateWebhookSecretResponse> {
    if (!isUuid(id)) throw notFound();
    const sectorId = scope.route.sectorId;
    const secret = newWebhookSecret();
    await scope.db.transaction(async (tx) => {
      if (!(await this.webhooks.rotateSecret(tx, sectorId, id, this.box.seal(WEBHOOK_SECRET_SEAL, secret), PREVIOUS_SECRET_HOURS))) throw notFound();
      await this.audit.record(tx, { type: 'webhook.secret_rotated', sectorId, target: { kind: 'webhook', id }, details: { previousSecretHours: PREVIOUS_SECRET_HOURS } });
    });
    return { id, secret };
  }

  /** Queues a `webhook.test` event for this endpoint alone (whatever it subscribes to, even while disabled). */
  async test(scope: SectorScope, id: string): Promise<TestWebhookResponse> {
    if (!isUuid(id)) throw notFound();
    const sectorId = scope.route.sectorId;
    const event = await scope.db.transaction(async (tx) => {
      // Locked, so a racing delete either waits for the event to be queued or leaves nothing to send to.
      if (!(await this.webhooks.find(tx, sectorId, id, true))) throw notFound();
      return this.events.emit(tx, sectorId, 'webhook.test', { webhookID: id }, id);
    });
    return { eventID: event.id };
  }

  /** The endpoint's deliveries, newest first, paged by cursor. */
  async deliveries(scope: SectorScope, id: string, query: ListWebhookDeliveriesQuery): Promise<ListWebhookDeliveriesResponse> {
    let beforeId: string | undefined;
    if (query.cursor !== undefined && query.cursor !== '') {
      beforeId = decodeIdCursor(DELIVERY_CURSOR, query.cursor);
      if (beforeId === undefined) throw DomainError.invalidField('cursor', 'is not a cursor this listing issued');
    }
    if (!isUuid(id) || !(await this.webhooks.find(scope.db, scope.route.sectorId, id))) throw notFound();
    const { pageSize } = paging(query.pageSize);
    const rows = await this.webhooks.deliveries(scope.db, id, { status: query.status, beforeId }, pageSize + 1);
    const page = rows.slice(0, pageSize);
    return {
      deliveries: page.map(toWebhookDeliveryResponse),
      nextCursor: rows.length > pageSize ? encodeIdCursor(DELIVERY_CURSOR, page[page.length - 1].id) : '',
    };
  }

  /** The URL as given, when the outbound rules allow it (INVALID_ARGUMENT on `url` with the reason otherwise). */
  private async checkedUrl(url: string): Promise<string> {
    const problem = await webhookUrlProblem(url, this.config.outboundAllowPrivateNetworks);
    if (problem) throw DomainError.invalidField('url', problem);
    return url;
  }
}

/** The names of the settings that differ. */
function changedFields(before: WebhookRow, after: WebhookSettings): string[] {
  const fields: string[] = [];
  if (after.url !== before.url) fields.push('url');
  if (after.events.length !== before.events.length || after.events.some((e, i) => e !== before.events[i])) fields.push('events');
  if (after.description !== before.description) fields.push('description');
  if (after.enabled !== before.enabled) fields.push('enabled');
  return fields;
}
