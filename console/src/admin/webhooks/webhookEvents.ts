import type { ServiceEventType, WebhookDeliveryStatus, WebhookEventType } from '../types';

/**
 * The event types an endpoint may subscribe to, in the order offered, with what
 * each reports (docs/api.md, Webhooks). Keyed by the OpenAPI document's
 * `ServiceEventType`, so a type added there fails the console's typecheck until
 * it is described here too.
 */
const EVENTS: Record<ServiceEventType, string> = {
  'user.created': 'A user created (by an admin, an API token, sign-up or SCIM).',
  'user.updated': 'A user’s profile changed (the names of the fields).',
  'user.deleted': 'A user deleted.',
  'user.disabled': 'A user disabled.',
  'user.enabled': 'A user enabled again.',
  'user.signed_in': 'A sign-in succeeded (the factors, the client address).',
  'user.password_changed': 'A password changed or reset.',
  'user.roles_changed': 'A user’s roles changed (those added and removed).',
  'session.revoked': 'A session ended early (revoked, signed out, a reused refresh token).',
  'api_token.created': 'An API token created.',
  'api_token.revoked': 'An API token revoked.',
  'webhook.test': 'The test event of “Send test event”.',
};

/** `["*"]`: every event type, those added later included. */
export const ALL_EVENTS = '*' satisfies WebhookEventType;

export const EVENT_TYPES = Object.keys(EVENTS) as ServiceEventType[];

export const eventHint = (type: ServiceEventType): string => EVENTS[type];

/** Whether an endpoint's subscription is every event. */
export const takesAll = (events: readonly WebhookEventType[]): boolean => events.includes(ALL_EVENTS);

export const DELIVERY_STATUSES: Array<{ value: WebhookDeliveryStatus; label: string }> = [
  { value: 'pending', label: 'Pending' },
  { value: 'succeeded', label: 'Succeeded' },
  { value: 'failed', label: 'Failed' },
];

/** A reason the service gave, as a sentence (its full stop added when missing). */
export const asSentence = (text: string): string => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);
