import type { TenantEntity } from '../../tenant/tenant.entity';

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
  tokenExp: number;
}

/** A sector API token: an admin of its own sector and of nothing else. */
export interface ApiTokenPrincipal {
  kind: 'apiToken';
  tenant: TenantEntity;
  sectorId: string;
  tokenId: string;
}

export type Principal = UserPrincipal | ApiTokenPrincipal;
