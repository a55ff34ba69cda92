import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { TenantEntity } from '../tenancy/tenant.entity';
import { UserAuthStates } from '../user/user-auth-states';
import { sessionActive, UserAuthState } from '../user/user.repository';
import { AccessTokenClaims, AccessTokenService } from '../keys/access-token.service';

export interface VerifiedToken {
  claims: AccessTokenClaims;
  tenant: TenantEntity;
  /** The token's user as stored now. */
  user: UserAuthState;
}

/**
 * Verifies an access token completely: the signature and claims
 * (AccessTokenService), then the token's user as stored now (UserAuthStates: read
 * from the database, or from a cache that every change reaches on commit) — a
 * deleted user's token, one of a user moved out of its sector, one whose
 * session ended (SESSION_REVOKED; the session is read in the same query) and one
 * revoked by a password change stop working at once, on every instance. Bearer
 * authentication and introspection both use it.
 */
@Injectable()
export class AccessTokenVerifier {
  constructor(
    private readonly tokens: AccessTokenService,
    private readonly directory: TenantDirectory,
    private readonly users: UserAuthStates,
  ) {}

  /**
   * TOKEN_INVALID / TOKEN_EXPIRED when the token does not hold. With `tenantId`,
   * a token of another tenant is PERMISSION_DENIED / TENANT_MISMATCH before
   * anything of that tenant is read.
   */
  async verify(token: string, tenantId?: string): Promise<VerifiedToken> {
    const cached = this.verifyCached(token, tenantId);
    if (cached) return cached;
    const claims = await this.tokens.verify(token);
    checkTenant(claims, tenantId);
    const tenant = await this.directory.tenantById(claims.tenantID);
    if (!tenant) throw invalid();
    // The user and, for a token of a session, that session's state: one query, or none on a cache hit.
    return accept(claims, tenant, await this.users.of(tenant, claims.sub, claims.sid));
  }

  /**
   * `verify` without a promise when everything it needs is cached (the token
   * verified before, its tenant, its user's state), with the same checks and
   * errors; undefined when something would have to be read.
   */
  verifyCached(token: string, tenantId?: string): VerifiedToken | undefined {
    const claims = this.tokens.verifiedBefore(token);
    if (claims === undefined) return undefined;
    checkTenant(claims, tenantId);
    const tenant = this.directory.cachedTenant(claims.tenantID);
    const user = tenant && this.users.cached(tenant, claims.sub, claims.sid);
    return user ? accept(claims, tenant, user) : undefined;
  }
}

const invalid = () => DomainError.unauthenticated(Reason.TOKEN_INVALID, 'The token is invalid.');

/** With `tenantId`, a token of another tenant is PERMISSION_DENIED / TENANT_MISMATCH. */
function checkTenant(claims: AccessTokenClaims, tenantId: string | undefined): void {
  if (tenantId !== undefined && claims.tenantID !== tenantId) {
    throw DomainError.permissionDenied('The token belongs to another tenant.', Reason.TENANT_MISMATCH);
  }
}

/** The token's user as stored now must still hold it. */
function accept(claims: AccessTokenClaims, tenant: TenantEntity, user: UserAuthState | null): VerifiedToken {
  if (!user || user.sectorId !== claims.sectorID || user.disabled) throw invalid();
  if (claims.sid !== undefined) {
    // A token of a session lives and dies with it (logout, revocation, password change or reset, replayed refresh token).
    if (!sessionActive(user)) throw DomainError.unauthenticated(Reason.SESSION_REVOKED, 'The session of this token was ended or has expired.');
  } else if ((claims.cv ?? 0) !== user.credentialVersion && claims.jti !== user.keptTokenJti) {
    // A token from before sessions: a password change revokes every one issued before it but the one that made the change.
    throw DomainError.unauthenticated(Reason.TOKEN_INVALID, 'The token was revoked by a password change.');
  }
  return { claims, tenant, user };
}
