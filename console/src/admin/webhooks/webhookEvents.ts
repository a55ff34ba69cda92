import { i18n } from '../../i18n';
import type { ServiceEventType, WebhookDeliveryStatus, WebhookEventType } from '../types';

/**
 * The event types an endpoint may subscribe to, in the order offered; what each
 * reports is the webhooks catalogue's `events.<type>` (docs/api.md, Webhooks). Keyed
 * by the OpenAPI document's `ServiceEventType`, so a type added there fails the
 * console's typecheck until it is named here too.
 */
const EVENTS: Record<ServiceEventType, true> = {
  'user.created': true,
  'user.updated': true,
  'user.deleted': true,
  'user.disabled': true,
  'user.enabled': true,
  'user.signed_in': true,
  'user.password_changed': true,
  'user.roles_changed': true,
  'session.revoked': true,
  'api_token.created': true,
  'api_token.revoked': true,
  'webhook.test': true,
};

/** `["*"]`: every event type, those added later included. */
export const ALL_EVENTS = '*' satisfies WebhookEventType;

export const EVENT_TYPES = Object.keys(EVENTS) as ServiceEventType[];

export const eventHint = (type: ServiceEventType): string => i18n.t(`webhooks:events.${type}`);

/** Whether an endpoint's subscription is every event. */
export const takesAll = (events: readonly WebhookEventType[]): boolean => events.includes(ALL_EVENTS);

/** The delivery states, named by the webhooks catalogue's `statuses.<status>`. */
export const DELIVERY_STATUSES: WebhookDeliveryStatus[] = ['pending', 'succeeded', 'failed'];

/** A reason the service gave, as a sentence (its full stop added when missing). */
export const asSentence = (text: string): string => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);
