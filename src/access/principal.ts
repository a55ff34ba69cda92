import type { TenantEntity } from '../tenancy/tenant.entity';

/** A signed-in user, as stored at request time (never as the token claims say). */
export interface UserPrincipal {
  kind: 'user';
  tenant: TenantEntity;
  sectorId: string;
  userId: string;
  username: string;
  /** The stored admin flag, read on this request. */
  isAdmin: boolean;
  /** The user's sector is its tenant's default (admin) sector. */
  isDefaultSector: boolean;
  /** The access token's jti and expiry. */
  tokenId: string;
  tokenExp: number;
  /** The session the access token belongs to (its `sid`); undefined for a token issued before sessions. */
  sessionId?: string;
  /** When the user authenticated (the token's `auth_time`, Unix seconds); undefined for older tokens. */
  authTime?: number;
}

/** A sector API token: an admin of its own sector and of nothing else. */
export interface ApiTokenPrincipal {
  kind: 'apiToken';
  tenant: TenantEntity;
  sectorId: string;
  tokenId: string;
}

/**
 * A user proven only by the transactionID of their own sign-in that succeeded in
 * the last 15 minutes: good for reading and updating their own profile, nothing else.
 */
export interface TransactionPrincipal {
  kind: 'transaction';
  tenant: TenantEntity;
  sectorId: string;
  userId: string;
  transactionId: string;
}

export type Principal = UserPrincipal | ApiTokenPrincipal | TransactionPrincipal;
