import type { SectorRoute } from '../tenancy/tenant-directory';
import type { Principal } from './principal';

/**
 * The role matrix: the one place that says who may do what (interface.md,
 * Authentication; CONVENTIONS §3). Handlers declare a role with @Authenticated;
 * the guard asks `allows`.
 */
export enum Role {
  /** Any valid credential: an access token or an API token. */
  AUTHENTICATED = 'AUTHENTICATED',
  /** Admin of the target sector, admin of its tenant's default sector, or an API token of the target sector. */
  SECTOR_ADMIN = 'SECTOR_ADMIN',
  /** Admin (a user, never an API token) of the default sector of the caller's tenant. */
  DEFAULT_SECTOR_ADMIN = 'DEFAULT_SECTOR_ADMIN',
  /** Admin of the platform tenant's default sector. */
  PLATFORM_ADMIN = 'PLATFORM_ADMIN',
}

/** Where the handler's target sector comes from, for roles that need one. */
export type SectorSource = 'param';

export interface AuthRequirement {
  role: Role;
  sectorFrom?: SectorSource;
}

function isDefaultSectorAdmin(p: Principal): boolean {
  return p.kind === 'user' && p.isAdmin && p.isDefaultSector;
}

/**
 * Does `principal` hold `role` over `target` (a sector, when the role is about one)?
 * A target of another tenant is never allowed; the guard answers it as not found.
 */
export function allows(role: Role, principal: Principal, target?: SectorRoute): boolean {
  if (target && target.tenant.id !== principal.tenant.id) return false;
  switch (role) {
    case Role.AUTHENTICATED:
      return true;
    case Role.SECTOR_ADMIN:
      if (!target) return false;
      if (principal.kind === 'apiToken') return principal.sectorId === target.sectorId;
      return principal.isAdmin && (principal.sectorId === target.sectorId || principal.isDefaultSector);
    case Role.DEFAULT_SECTOR_ADMIN:
      return isDefaultSectorAdmin(principal);
    case Role.PLATFORM_ADMIN:
      return isDefaultSectorAdmin(principal) && principal.tenant.isPlatform;
  }
}
