import { unixSeconds } from '../common/wire/wire';
import { CreateWebhookResponse, WebhookDeliveryResponse, WebhookResponse } from './dto/webhook.dto';
import { WebhookDeliveryRow, WebhookRow } from './webhook.repository';

/** Unix seconds, or `"0"` (never) for a time that is not set, as every time on the wire. */
function unixSecondsOrNever(date: Date | null): string {
  return date ? unixSeconds(date) : '0';
}

export function toWebhookResponse(row: WebhookRow): WebhookResponse {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    failingSince: unixSecondsOrNever(row.failingSince),
    createdAt: unixSeconds(row.createdAt),
    updatedAt: unixSeconds(row.updatedAt),
  };
}

/** The answer to a creation: the webhook and its signing secret, shown this once. */
export function toCreateWebhookResponse(row: WebhookRow, secret: string): CreateWebhookResponse {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    enabled: row.enabled,
    createdAt: unixSeconds(row.createdAt),
    secret,
  };
}

export function toWebhookDeliveryResponse(row: WebhookDeliveryRow): WebhookDeliveryResponse {
  return {
    id: row.id,
    eventID: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attempts: row.attempts,
    lastStatus: row.lastStatus ?? 0,
    lastError: row.lastError,
    nextAttemptAt: row.status === 'pending' ? unixSeconds(row.nextAttemptAt) : '0',
    createdAt: unixSeconds(row.createdAt),
    finishedAt: unixSecondsOrNever(row.finishedAt),
  };
}
