import type { ServiceEventType } from '../events/service-event';
import type { AuditEventInput } from './audit-event';

/** What an audit event announces to webhooks and extensions: the event type and its data (ids and field names only). */
export interface Announcement {
  type: ServiceEventType;
  data: Record<string, unknown>;
}

/** Copies the named details that are present (they are allow-listed already: names and ids, never values). */
function pick(details: Record<string, unknown> | undefined, names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) if (details?.[name] !== undefined) out[name] = details[name];
  return out;
}

/**
 * The service event a successful audit event announces, if any. Every audited
 * change goes through AuditService.record in its transaction, so the events
 * derived here leave with their change.
 */
export function announcementOf(event: AuditEventInput): Announcement | undefined {
  if (event.outcome === 'failure' || !event.target) return undefined;
  const id = event.target.id;
  const viaScim = event.details?.scim === true ? { source: 'scim' } : {};
  switch (event.type) {
    case 'user.created':
      return { type: 'user.created', data: { userID: id, ...pick(event.details, ['isAdmin', 'invited']), ...viaScim } };
    case 'user.updated':
      return { type: 'user.updated', data: { userID: id, fields: event.details?.fields ?? [], ...pick(event.details, ['emailChangePending']), ...viaScim } };
    case 'user.deleted':
    case 'user.disabled':
    case 'user.enabled':
      return { type: event.type, data: { userID: id, ...viaScim } };
    case 'user.roles_changed':
      return { type: 'user.roles_changed', data: { userID: id, added: event.details?.added ?? [], removed: event.details?.removed ?? [], ...viaScim } };
    case 'password.changed':
      return { type: 'user.password_changed', data: { userID: id, reset: false, self: event.details?.self === true } };
    case 'password.reset':
      return { type: 'user.password_changed', data: { userID: id, reset: true, self: true } };
    case 'api_token.created':
      return { type: 'api_token.created', data: { tokenID: id, ...pick(event.details, ['name', 'prefix']) } };
    case 'api_token.revoked':
      return { type: 'api_token.revoked', data: { tokenID: id } };
    default:
      return undefined;
  }
}
