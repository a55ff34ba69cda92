/**
 * The events the service announces, to webhooks (Standard Webhooks deliveries)
 * and to extension modules in process. The list is part of the published
 * interface: a new type is added here, to docs/api.md and to the OpenAPI
 * document (which reads it from here).
 */
export const SERVICE_EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.deleted',
  'user.disabled',
  'user.enabled',
  'user.signed_in',
  'user.password_changed',
  'user.roles_changed',
  'session.revoked',
  'api_token.created',
  'api_token.revoked',
  'webhook.test',
] as const;

export type ServiceEventType = (typeof SERVICE_EVENT_TYPES)[number];

/** Subscribes to every event type, those added later included. */
export const ALL_EVENTS = '*';

/**
 * What an event says. Always the tenant and sector, and the subject's ids
 * (`userID`, `sessionID`, `tokenID`, `webhookID`); never a secret.
 */
export interface ServiceEventData {
  tenantID: string;
  sectorID: string;
  [field: string]: unknown;
}

/** One event, as delivered: the body of a webhook delivery is `{type, timestamp, data}`, its `webhook-id` is `id`. */
export interface ServiceEvent {
  /** Unique per event and the same on every retry of its delivery (`msg_` + 22 base64url characters). */
  id: string;
  type: ServiceEventType;
  /** When the change happened (RFC 3339, UTC). */
  timestamp: string;
  data: ServiceEventData;
}

export function isServiceEventType(value: string): value is ServiceEventType {
  return (SERVICE_EVENT_TYPES as readonly string[]).includes(value);
}
