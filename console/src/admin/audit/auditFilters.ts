import type { Schemas } from '../../api/types';
import { i18n } from '../../i18n';

export type AuditEvent = Schemas['AuditEventResponse'];
export type AuditEventType = AuditEvent['type'];

/**
 * The event types of the audit trail (docs/api.md, Audit events), in the order
 * offered by the type filter. Keyed by the OpenAPI document's enum, so a type
 * added there fails the console's typecheck until it is named here too (and its
 * words in the audit catalogue's `types.<type>`).
 */
const TYPES: Record<AuditEventType, true> = {
  sign_in: true,
  'mfa.enrolled': true,
  'mfa.removed': true,
  'mfa.flag_cleared': true,
  'identity.linked': true,
  'password.changed': true,
  'password.reset': true,
  'user.created': true,
  'user.updated': true,
  'user.deleted': true,
  'user.disabled': true,
  'user.enabled': true,
  'user.roles_changed': true,
  'role.changed': true,
  'user.invited': true,
  'settings.updated': true,
  'oauth_providers.updated': true,
  'api_token.created': true,
  'api_token.revoked': true,
  'tenant.provisioned': true,
  'signing_key.rotated': true,
  'oidc_client.created': true,
  'oidc_client.updated': true,
  'oidc_client.secret_rotated': true,
  'oidc_client.deleted': true,
  'oidc_grant.revoked': true,
  'webhook.created': true,
  'webhook.updated': true,
  'webhook.deleted': true,
  'webhook.secret_rotated': true,
  'webhook.disabled': true,
};

/** The type filter's choices, in the current language. */
export const typeOptions = () => (Object.keys(TYPES) as AuditEventType[]).map((value) => ({ value, label: `${i18n.t(`audit:types.${value}`)} (${value})` }));

const isType = (value: string): value is AuditEventType => Object.hasOwn(TYPES, value);

/** What the audit viewer is narrowed to, as its URL query keeps it: dates as YYYY-MM-DD in the viewer's time zone. */
export interface AuditFilters {
  type: AuditEventType | '';
  actor: string;
  target: string;
  /** The first day shown (from its local midnight). */
  from: string;
  /** The last day shown (up to the next local midnight). */
  to: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The filters of a URL query; what is malformed is left out. */
export function filtersOf(params: URLSearchParams): AuditFilters {
  const type = params.get('type') ?? '';
  const date = (key: string) => {
    const value = params.get(key) ?? '';
    return DATE.test(value) ? value : '';
  };
  return { type: isType(type) ? type : '', actor: (params.get('actor') ?? '').trim(), target: (params.get('target') ?? '').trim(), from: date('from'), to: date('to') };
}

/** The URL query of some filters (empty ones left out). */
export function paramsOf(filters: AuditFilters): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(filters)) if (value) out[key] = value;
  return out;
}

/** Unix seconds of the local midnight that starts a YYYY-MM-DD day, `plusDays` days later. */
function localMidnight(day: string, plusDays = 0): number | undefined {
  const m = DATE.exec(day);
  if (!m) return undefined;
  const at = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + plusDays).getTime();
  return Number.isNaN(at) ? undefined : Math.floor(at / 1000);
}

/** Why the date range cannot be asked for, or undefined. */
export function rangeError(filters: AuditFilters): string | undefined {
  const from = localMidnight(filters.from);
  const to = localMidnight(filters.to, 1);
  return from !== undefined && to !== undefined && to <= from ? i18n.t('audit:rangeError') : undefined;
}

/** The API's query for some filters: the days become Unix seconds, the last day included. */
export function apiQueryOf(filters: AuditFilters): Record<string, string | undefined> {
  return {
    type: filters.type || undefined,
    actor: filters.actor || undefined,
    target: filters.target || undefined,
    from: localMidnight(filters.from)?.toString(),
    to: localMidnight(filters.to, 1)?.toString(),
  };
}
