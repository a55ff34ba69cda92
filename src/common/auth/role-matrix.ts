import type { SectorRoute } from '../tenancy/tenant-directory';
import type { Principal } from './principal';

/**
 * The role matrix: the one place that says who may do what (interface.md,
 * Authentication; CONVENTIONS §3). Handlers declare a role with @Authenticated;
 * the guard resolves the target and asks `allows`.
 */
export enum Role {
  /** Any valid bearer credential: an access token or an API token. */
  AUTHENTICATED = 'AUTHENTICATED',
  /** Admin of the target sector, admin of its tenant's default sector, or an API token of the target sector. */
  SECTOR_ADMIN = 'SECTOR_ADMIN',
  /** SECTOR_ADMIN, but a signed-in user only: API tokens never mint or manage API tokens. */
  TOKEN_MANAGER = 'TOKEN_MANAGER',
  /** Admin (a user, never an API token) of the default sector of the caller's tenant. */
  DEFAULT_SECTOR_ADMIN = 'DEFAULT_SECTOR_ADMIN',
  /** Admin of the platform tenant's default sector. */
  PLATFORM_ADMIN = 'PLATFORM_ADMIN',
  /** Create users in the target sector: SECTOR_ADMIN, or a user of that sector when AllowUserCreationForNonAdmins. */
  USER_CREATOR = 'USER_CREATOR',
  /** List the target sector's users: SECTOR_ADMIN, or a user of that sector when AllowUserReadForNonAdmins. */
  USER_LISTER = 'USER_LISTER',
  /** Read the target user: SECTOR_ADMIN over the user's sector, the user themselves, or a user of the same sector when AllowUserReadForNonAdmins. */
  USER_READER = 'USER_READER',
  /** Update the target user: SECTOR_ADMIN over the user's sector, or the user themselves. */
  USER_EDITOR = 'USER_EDITOR',
  /** Delete the target user or resend their invitation: SECTOR_ADMIN over the user's sector. */
  USER_ADMIN = 'USER_ADMIN',
}

/** Where the handler's target comes from. 'param': `:sectorID`; 'userParam': the sector of user `:sub`. */
export type TargetSource = 'param' | 'userParam';

export interface AuthRequirement {
  role: Role;
  sectorFrom?: TargetSource;
  /** Accept `?transactionID=` (a recent successful sign-in of the target user) instead of a bearer credential. */
  transactionProof?: boolean;
}

/** Sector settings some roles depend on. */
export interface SectorFlags {
  allowUserCreationForNonAdmins: boolean;
  allowUserReadForNonAdmins: boolean;
}

export interface AccessTarget {
  sector?: SectorRoute;
  /** The target user, for USER_* roles. */
  userId?: string;
  flags?: SectorFlags;
}

/** Roles whose decision depends on the target sector's settings. */
export const ROLES_NEEDING_FLAGS: ReadonlySet<Role> = new Set([Role.USER_CREATOR, Role.USER_LISTER, Role.USER_READER]);

function isDefaultSectorAdmin(p: Principal): boolean {
  return p.kind === 'user' && p.isAdmin && p.isDefaultSector;
}

/** Admin rights over `sector`: its admins, its tenant's default-sector admins, its own API tokens. */
export function isAdminOver(p: Principal, sector: SectorRoute): boolean {
  if (sector.tenant.id !== p.tenant.id) return false;
  if (p.kind === 'apiToken') return p.sectorId === sector.sectorId;
  if (p.kind !== 'user') return false;
  return p.isAdmin && (p.sectorId === sector.sectorId || p.isDefaultSector);
}

function isMemberOf(p: Principal, sector: SectorRoute): boolean {
  return p.kind === 'user' && p.sectorId === sector.sectorId;
}

function isSelf(p: Principal, userId: string | undefined): boolean {
  return userId !== undefined && (p.kind === 'user' || p.kind === 'transaction') && p.userId === userId;
}

/**
 * Does `principal` hold `role` over `target`? A target of another tenant is never
 * allowed (the guard answers it as not found). A transaction proof only ever
 * reaches the user's own profile.
 */
export function allows(role: Role, principal: Principal, target: AccessTarget = {}): boolean {
  const { sector, userId, flags } = target;
  if (sector && sector.tenant.id !== principal.tenant.id) return false;
  if (principal.kind === 'transaction' && role !== Role.USER_READER && role !== Role.USER_EDITOR) return false;
  switch (role) {
    case Role.AUTHENTICATED:
      return true;
    case Role.SECTOR_ADMIN:
    case Role.USER_ADMIN:
      return sector !== undefined && isAdminOver(principal, sector);
    case Role.TOKEN_MANAGER:
      return sector !== undefined && principal.kind === 'user' && isAdminOver(principal, sector);
    case Role.DEFAULT_SECTOR_ADMIN:
      return isDefaultSectorAdmin(principal);
    case Role.PLATFORM_ADMIN:
      return isDefaultSectorAdmin(principal) && principal.tenant.isPlatform;
    case Role.USER_CREATOR:
      return sector !== undefined && (isAdminOver(principal, sector) || (isMemberOf(principal, sector) && flags?.allowUserCreationForNonAdmins === true));
    case Role.USER_LISTER:
      return sector !== undefined && (isAdminOver(principal, sector) || (isMemberOf(principal, sector) && flags?.allowUserReadForNonAdmins === true));
    case Role.USER_READER:
      return (
        sector !== undefined &&
        (isAdminOver(principal, sector) || isSelf(principal, userId) || (isMemberOf(principal, sector) && flags?.allowUserReadForNonAdmins === true))
      );
    case Role.USER_EDITOR:
      return sector !== undefined && (isAdminOver(principal, sector) || isSelf(principal, userId));
  }
}
