import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { TenantEntity } from '../tenancy/tenant.entity';
import { UserAuthStates } from '../user/user-auth-states';
import { sessionActive, UserAuthState } from '../user/user.repository';
import { AccessTokenClaims, AccessTokenService } from './access-token.service';

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
    const claims = await this.tokens.verify(token);
    if (tenantId !== undefined && claims.tenantID !== tenantId) {
      throw DomainError.permissionDenied('The token belongs to another tenant.', Reason.TENANT_MISMATCH);
    }
    const invalid = () => DomainError.unauthenticated(Reason.TOKEN_INVALID, 'The token is invalid.');
    const tenant = await this.directory.tenantById(claims.tenantID);
    if (!tenant) throw invalid();
    // The user and, for a token of a session, that session's state: one query, or none on a cache hit.
    const user = await this.users.of(tenant, claims.sub, claims.sid);
    if (!user || user.sectorId !== claims.sectorID) throw invalid();
    if (claims.sid !== undefined) {
      // A token of a session lives and dies with it (logout, revocation, password change or reset, replayed refresh token).
      if (!sessionActive(user)) throw DomainError.unauthenticated(Reason.SESSION_REVOKED, 'The session of this token was ended or has expired.');
    } else if ((claims.cv ?? 0) !== user.credentialVersion && claims.jti !== user.keptTokenJti) {
      // A token from before sessions: a password change revokes every one issued before it but the one that made the change.
      throw DomainError.unauthenticated(Reason.TOKEN_INVALID, 'The token was revoked by a password change.');
    }
    return { claims, tenant, user };
  }
}
