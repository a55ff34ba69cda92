import type { SectorRoute } from '../tenancy/tenant-directory';
import type { Principal } from './principal';

/**
 * The role matrix: the one place that says who may do what (docs/api.md, Roles).
 * Handlers declare a role with @Authenticated; the guard resolves the target and
 * asks `allows`.
 *
 * API tokens act as an admin of their own sector, bounded so that nothing a token
 * creates or changes exceeds the token itself: a token creates, reads, updates and
 * deletes the non-admin users of its sector; it never grants admin rights, never
 * marks an email or phone number verified, never changes or deletes an admin,
 * never sets or resets a password, never touches factors, never manages API
 * tokens, roles or webhooks, and never reads the audit trail. Everything else is
 * never open to a token (tenants, sector lists, other sectors).
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
  /**
   * Update the target user's profile: an admin over the user's sector, the user
   * themselves, or an API token of the user's sector when the user is not an admin.
   */
  USER_EDITOR = 'USER_EDITOR',
  /**
   * Delete the target user or resend their invitation: an admin over the user's
   * sector, or an API token of that sector when the user is not an admin.
   */
  USER_ADMIN = 'USER_ADMIN',
  /**
   * Manage the target user's credentials (password, one-time-code factors): the
   * user themselves, or a signed-in admin over the user's sector. Never an API token.
   */
  USER_CREDENTIALS = 'USER_CREDENTIALS',
  /**
   * Lift a safety hold on the target user's factor (clear the flag of a passkey
   * that may have been cloned): a signed-in admin over the user's sector, never
   * the user themselves (whose credentials may be what was stolen), never an API token.
   */
  USER_FACTOR_ADMIN = 'USER_FACTOR_ADMIN',
  /**
   * Read the target sector's audit events: a signed-in admin of the sector or of
   * its tenant's default sector. Never an API token: the audit log is for people
   * reviewing what happened, including what tokens did.
   */
  AUDIT_READER = 'AUDIT_READER',
  /** Define the target sector's roles (create, replace, delete): a signed-in admin of the sector or of its tenant's default sector. Never an API token. */
  ROLE_ADMIN = 'ROLE_ADMIN',
  /**
   * Manage the target sector's webhooks (create, list, change, delete, rotate their
   * secrets, read their delivery logs, send test events): a signed-in admin of the
   * sector or of its tenant's default sector. Never an API token: a webhook hears
   * what happens in the sector (sign-ins with client addresses, sessions, what API
   * tokens did), which is the audit trail's reach (AUDIT_READER), and its signing
   * secret is a credential minted for another system (tokens mint none).
   */
  WEBHOOK_ADMIN = 'WEBHOOK_ADMIN',
  /** Read the target user's roles and permissions: an admin over the user's sector (API tokens of that sector included), or the user themselves. */
  USER_ROLE_READER = 'USER_ROLE_READER',
  /**
   * Set the target user's roles: a signed-in admin over the user's sector, or an
   * API token of that sector when the user is not an admin; never the user themselves.
   */
  USER_ROLE_ASSIGNER = 'USER_ROLE_ASSIGNER',
  /** Provision the target sector over SCIM: an API token of exactly that sector, nothing else. */
  SCIM_CLIENT = 'SCIM_CLIENT',
}

/**
 * Where the handler's target comes from. 'param': `:sectorID`; 'userParam': the
 * sector of user `:sub`; 'callerTenant': the default sector of the caller's tenant
 * (operations on the tenant as a whole, such as its sector list).
 */
type TargetSource = 'param' | 'userParam' | 'callerTenant';

export interface AuthRequirement {
  role: Role;
  sectorFrom?: TargetSource;
  /** Accept `?transactionID=` (a recent successful sign-in of the target user) instead of a bearer credential. */
  transactionProof?: boolean;
}

/** Sector settings some roles depend on. */
interface SectorFlags {
  allowUserCreationForNonAdmins: boolean;
  allowUserReadForNonAdmins: boolean;
}

export interface AccessTarget {
  sector?: SectorRoute;
  /** The target user, for USER_* roles. */
  userId?: string;
  /** The target user's stored admin flag; unknown counts as an admin (deny by default). */
  userIsAdmin?: boolean;
  flags?: SectorFlags;
}

/**
 * The roles a transaction proof (a recent sign-in of the target user) can hold:
 * over that user only. Routes with USER_CREDENTIALS accept a proof only where
 * they read (the factor lists); adding, verifying, renaming or removing a factor
 * never does.
 */
const SELF_PROOF_ROLES: ReadonlySet<Role> = new Set([Role.USER_READER, Role.USER_EDITOR, Role.USER_CREDENTIALS]);

/** Roles whose decision depends on the target sector's settings. */
export const ROLES_NEEDING_FLAGS: ReadonlySet<Role> = new Set([Role.USER_CREATOR, Role.USER_LISTER, Role.USER_READER]);

function isDefaultSectorAdmin(p: Principal): boolean {
  return p.kind === 'user' && p.isAdmin && p.isDefaultSector;
}

/** Admin rights over `sector`: its admins, its tenant's default-sector admins, its own API tokens. */
export function isAdminOver(p: Principal, sector: SectorRoute): boolean {
  return isUserAdminOver(p, sector) || isSectorToken(p, sector);
}

/**
 * A signed-in admin over `sector` (its admins, its tenant's default-sector admins),
 * never an API token. Only they may grant or revoke admin rights, mark an email or
 * phone number verified, set another user's password or manage their factors:
 * what an API token creates or changes never exceeds the token's own rights.
 */
export function isUserAdminOver(p: Principal, sector: SectorRoute): boolean {
  if (p.kind !== 'user' || sector.tenant.id !== p.tenant.id) return false;
  return p.isAdmin && (p.sectorId === sector.sectorId || p.isDefaultSector);
}

/** An API token of exactly this sector. */
function isSectorToken(p: Principal, sector: SectorRoute): boolean {
  return p.kind === 'apiToken' && sector.tenant.id === p.tenant.id && p.sectorId === sector.sectorId;
}

/** An API token acts on the non-admin users of its sector only (an unknown admin flag counts as admin). */
function isTokenOverMember(p: Principal, sector: SectorRoute, userIsAdmin: boolean | undefined): boolean {
  return isSectorToken(p, sector) && userIsAdmin === false;
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
  const { sector, userId, userIsAdmin, flags } = target;
  if (sector && sector.tenant.id !== principal.tenant.id) return false;
  if (principal.kind === 'transaction' && !SELF_PROOF_ROLES.has(role)) return false;
  switch (role) {
    case Role.AUTHENTICATED:
      return true;
    case Role.SECTOR_ADMIN:
      return sector !== undefined && isAdminOver(principal, sector);
    case Role.USER_ADMIN:
      return sector !== undefined && (isUserAdminOver(principal, sector) || isTokenOverMember(principal, sector, userIsAdmin));
    case Role.TOKEN_MANAGER:
      return sector !== undefined && isUserAdminOver(principal, sector);
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
      return (
        sector !== undefined &&
        (isUserAdminOver(principal, sector) || isTokenOverMember(principal, sector, userIsAdmin) || isSelf(principal, userId))
      );
    case Role.USER_CREDENTIALS:
      return sector !== undefined && (isUserAdminOver(principal, sector) || isSelf(principal, userId));
    case Role.USER_FACTOR_ADMIN:
      return sector !== undefined && userId !== undefined && isUserAdminOver(principal, sector) && !isSelf(principal, userId);
    case Role.AUDIT_READER:
    case Role.ROLE_ADMIN:
    case Role.WEBHOOK_ADMIN:
      return sector !== undefined && isUserAdminOver(principal, sector);
    case Role.SCIM_CLIENT:
      return sector !== undefined && isSectorToken(principal, sector);
    case Role.USER_ROLE_READER:
      return sector !== undefined && (isAdminOver(principal, sector) || isSelf(principal, userId));
    case Role.USER_ROLE_ASSIGNER:
      return (
        sector !== undefined &&
        userId !== undefined &&
        !isSelf(principal, userId) &&
        (isUserAdminOver(principal, sector) || isTokenOverMember(principal, sector, userIsAdmin))
      );
  }
}
