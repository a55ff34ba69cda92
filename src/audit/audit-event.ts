import type { Principal } from '../access/principal';
import type { RequestActor } from '../common/http/request-context';
import { decodeIdCursor, encodeIdCursor } from '../common/wire/paging';

/** The stable event types of the audit trail (docs/api.md, Audit events). */
export const AUDIT_EVENT_TYPES = [
  'sign_in',
  'mfa.enrolled',
  'mfa.removed',
  'identity.linked',
  'mfa.flag_cleared',
  'password.changed',
  'password.reset',
  'user.created',
  'user.updated',
  'user.deleted',
  'user.disabled',
  'user.enabled',
  'user.roles_changed',
  'role.changed',
  'user.invited',
  'settings.updated',
  'oauth_providers.updated',
  'api_token.created',
  'api_token.revoked',
  'tenant.provisioned',
  'signing_key.rotated',
  'oidc_client.created',
  'oidc_client.updated',
  'oidc_client.secret_rotated',
  'oidc_client.deleted',
  'oidc_grant.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.disabled',
] as const;
type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

export type AuditActor = RequestActor;

/**
 * What a caller appends. `details` is a small allow-listed JSON: names of fields
 * changed, a factor type, a token's name and id; never the value of a secret,
 * password, code or token.
 */
export interface AuditEventInput {
  type: AuditEventType;
  sectorId: string;
  outcome?: 'success' | 'failure';
  reason?: string;
  /** Defaults to the request's authenticated caller, else `anonymous`. */
  actor?: AuditActor;
  target?: { kind: string; id: string };
  details?: Record<string, unknown>;
}

/** The row as appended: what `AuditEventInput` says, completed from the request context. */
export interface AuditRow {
  sectorId: string;
  type: string;
  outcome: 'success' | 'failure';
  reason: string;
  actorKind: string;
  actorId: string;
  targetKind: string;
  targetId: string;
  clientIp: string;
  requestId: string;
  details: Record<string, unknown>;
}

/** A stored event (a row of `audit_events`): the appended row with its id and time. */
export interface AuditEntity extends Omit<AuditRow, 'outcome'> {
  id: string;
  occurredAt: Date;
  outcome: string;
}

/** The audit actor of a principal: a user (also one proven by a recent sign-in) or an API token, by id. */
export function actorOf(principal: Principal): AuditActor {
  switch (principal.kind) {
    case 'user':
    case 'transaction':
      return { kind: 'user', id: principal.userId };
    case 'apiToken':
      return { kind: 'apiToken', id: principal.tokenId };
  }
}

export const SYSTEM_ACTOR: AuditActor = { kind: 'system', id: '' };

/** The cursor of a listing: opaque to clients (base64url of the last event id seen). */
export function encodeAuditCursor(id: string): string {
  return encodeIdCursor('a', id);
}

/** The last id a cursor names; undefined for a cursor this service did not issue. */
export function decodeAuditCursor(cursor: string): string | undefined {
  return decodeIdCursor('a', cursor);
}
