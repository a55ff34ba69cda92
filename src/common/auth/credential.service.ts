import { Injectable } from '@nestjs/common';
import { AccessTokenClaims, AccessTokenService } from '../../keys/access-token.service';
import { UserAuthState, UserRepository } from '../../user/user.repository';
import { DomainError } from '../errors/domain-error';
import { Reason } from '../errors/error-codes';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { TenantEntity } from '../../tenant/tenant.entity';
import { Principal } from './principal';

export interface VerifiedToken {
  claims: AccessTokenClaims;
  tenant: TenantEntity;
  /** The token's user as stored now. */
  user: UserAuthState;
}

/**
 * Turns a bearer credential into a Principal, reading the user's stored state on
 * every request: a deleted user's token stops working and a demoted admin loses
 * admin rights at once, whatever the token says.
 */
@Injectable()
export class CredentialService {
  constructor(
    private readonly tokens: AccessTokenService,
    private readonly directory: TenantDirectory,
    private readonly connections: TenantConnections,
    private readonly users: UserRepository,
  ) {}

  /**
   * Verifies an access token and loads its user; TOKEN_INVALID when the user or
   * tenant is gone. With `tenantId`, a token of another tenant is refused before
   * anything of that tenant is read.
   */
  async verifyAccessToken(token: string, tenantId?: string): Promise<VerifiedToken> {
    const claims = await this.tokens.verify(token);
    if (tenantId !== undefined && claims.tenantID !== tenantId) {
      throw DomainError.permissionDenied('The token belongs to another tenant.', Reason.TENANT_MISMATCH);
    }
    const invalid = () => DomainError.unauthenticated(Reason.TOKEN_INVALID, 'The token is invalid.');
    const tenant = await this.directory.tenantById(claims.tenantID);
    if (!tenant) throw invalid();
    const db = await this.connections.db(tenant);
    const user = await this.users.findAuthState(db, claims.sub);
    if (!user || user.sectorId !== claims.sectorID) throw invalid();
    return { claims, tenant, user };
  }

  async authenticate(credential: string): Promise<Principal> {
    if (!this.tokens.looksLikeJwt(credential)) {
      throw DomainError.unauthenticated(Reason.TOKEN_INVALID, 'The token is invalid.');
    }
    const { claims, tenant, user } = await this.verifyAccessToken(credential);
    return {
      kind: 'user',
      tenant,
      sectorId: user.sectorId,
      userId: user.id,
      username: user.username,
      isAdmin: user.isAdmin,
      isDefaultSector: user.sectorId === tenant.rootSectorId,
      tokenExp: claims.exp,
    };
  }
}
