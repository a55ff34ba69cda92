import { isUuid } from '../common/wire/wire';

const UID = /^[A-Za-z0-9_-]{1,64}$/;
const SECTOR = /^[A-Za-z0-9_-]{22}$/;

/**
 * The public id of an OpenID Provider sign-in request: the library's interaction
 * uid and the issuer's sector (compact), so the interactions API finds the tenant
 * database that holds it without a lookup table: `{uid}.{sector as base64url}`.
 */
export function interactionId(sectorId: string, uid: string): string {
  return `${uid}.${Buffer.from(sectorId.replace(/-/g, ''), 'hex').toString('base64url')}`;
}

/** The uid and sector of a public interaction id, or undefined when it is not one. */
export function parseInteractionId(id: string): { uid: string; sectorId: string } | undefined {
  const [uid, sector, ...rest] = id.split('.');
  if (rest.length > 0 || !uid || !sector || !UID.test(uid) || !SECTOR.test(sector)) return undefined;
  const hex = Buffer.from(sector, 'base64url').toString('hex');
  const sectorId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return isUuid(sectorId) ? { uid, sectorId } : undefined;
}
