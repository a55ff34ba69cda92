import { randomBytes } from 'node:crypto';
import { isUuid } from '../common/wire/wire';

/**
 * Opaque credentials that carry their tenant: base64url of 32 CSPRNG bytes
 * followed by the tenant's 16 UUID bytes (random first, so that a prefix of the
 * text tells credentials apart). Any instance can route such an id
 * (a transaction id, an invitation token) to the tenant's database without a
 * directory lookup; the random part (256 bits) is what makes it unguessable.
 */
const RANDOM_BYTES = 32;

export function newRoutedId(tenantId: string): string {
  const tenant = Buffer.from(tenantId.replace(/-/g, ''), 'hex');
  return Buffer.concat([randomBytes(RANDOM_BYTES), tenant]).toString('base64url');
}

/** The tenant a routed id belongs to, or undefined when the id is not one. */
export function tenantOfRoutedId(id: string): string | undefined {
  if (typeof id !== 'string' || id.length !== 64 || !/^[A-Za-z0-9_-]+$/.test(id)) return undefined;
  const hex = Buffer.from(id, 'base64url').subarray(RANDOM_BYTES, RANDOM_BYTES + 16).toString('hex');
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return isUuid(uuid) ? uuid : undefined;
}
