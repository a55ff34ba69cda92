import { Injectable } from '@nestjs/common';
import { AccessTokenClaims, AccessTokenService } from '../keys/access-token.service';
import { UserAuthState, UserRepository } from '../user/user.repository';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { TenantEntity } from '../tenancy/tenant.entity';
import { ApiTokenService } from '../api-token/api-token.service';
import { AuthTransactionRepository } from '../auth/engine/auth-transaction.repository';
import { tenantOfRoutedId } from '../tenancy/routed-id';
import { Principal, TransactionPrincipal } from './principal';

/** How long a successful sign-in's transactionID proves self-access (CONVENTIONS §3). */
export const SELF_PROOF_WINDOW_MS = 15 * 60 * 1000;

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
    private readonly apiTokens: ApiTokenService,
    private readonly transactions: AuthTransactionRepository,
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
    // A password change revokes every token issued before it but the one that made the change.
    if ((claims.cv ?? 0) !== user.credentialVersion && claims.jti !== user.keptTokenJti) {
      throw DomainError.unauthenticated(Reason.TOKEN_INVALID, 'The token was revoked by a password change.');
    }
    return { claims, tenant, user };
  }

  async authenticate(credential: string): Promise<Principal> {
    if (this.apiTokens.isApiToken(credential)) return this.apiTokens.authenticate(credential);
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
      tokenId: claims.jti,
      tokenExp: claims.exp,
    };
  }

  /**
   * Self-access by `?transactionID=`: a transaction of an existing user that
   * completed with SUCCESS in the last 15 minutes. TRANSACTION_PROOF_INVALID otherwise.
   */
  async authenticateTransactionProof(transactionId: string): Promise<TransactionPrincipal> {
    const invalid = () =>
      DomainError.unauthenticated(Reason.TRANSACTION_PROOF_INVALID, 'The transactionID does not prove a successful sign-in of the last 15 minutes.');
    const tenantId = tenantOfRoutedId(transactionId);
    const tenant = tenantId ? await this.directory.tenantById(tenantId) : undefined;
    if (!tenant) throw invalid();
    const db = await this.connections.db(tenant);
    const tx = await this.transactions.find(db, transactionId);
    if (!tx || tx.status !== 'SUCCESS' || !tx.userId || !tx.completedAt || Date.now() - tx.completedAt.getTime() > SELF_PROOF_WINDOW_MS) {
      throw invalid();
    }
    const user = await this.users.findAuthState(db, tx.userId);
    // A password change since the sign-in revokes its proof.
    if (!user || (user.credentialsChangedAt && tx.completedAt.getTime() <= user.credentialsChangedAt.getTime())) throw invalid();
    return { kind: 'transaction', tenant, sectorId: user.sectorId, userId: user.id, transactionId };
  }
}
