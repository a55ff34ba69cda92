import { Injectable } from '@nestjs/common';
import { AccessTokenService } from '../keys/access-token.service';
import { AccessTokenVerifier, VerifiedToken } from './access-token-verifier';
import { UserRepository } from '../user/user.repository';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { AuthStateCache } from '../tenancy/auth-state-cache';
import { ApiTokenService } from '../api-token/api-token.service';
import { AuthTransactionRepository } from '../auth/engine/auth-transaction.repository';
import { SIGN_IN } from '../auth/engine/sign-in-engine';
import { tenantOfRoutedId } from '../tenancy/routed-id';
import { Principal, TransactionPrincipal } from '../access/principal';

/** How long a successful sign-in's transactionID proves self-access (docs/api.md, Credentials). */
const SELF_PROOF_WINDOW_MS = 15 * 60 * 1000;

/**
 * Turns a bearer credential into a Principal, reading the user's stored state on
 * every request: a deleted user's token stops working and a demoted admin loses
 * admin rights at once, whatever the token says.
 */
@Injectable()
export class CredentialService {
  constructor(
    private readonly tokens: AccessTokenService,
    private readonly verifier: AccessTokenVerifier,
    private readonly directory: TenantDirectory,
    private readonly connections: TenantConnections,
    private readonly users: UserRepository,
    private readonly apiTokens: ApiTokenService,
    private readonly transactions: AuthTransactionRepository,
    private readonly authStates: AuthStateCache,
  ) {}

  /**
   * Resolves once this request may be answered from the caches: every revoking
   * change committed anywhere before it arrived has been heard here (see
   * AuthStateCache.sync). Until then `authenticateCached` answers undefined.
   */
  async ready(): Promise<void> {
    await this.authStates.sync();
  }

  async authenticate(credential: string): Promise<Principal> {
    if (this.apiTokens.isApiToken(credential)) return this.apiTokens.authenticate(credential);
    if (!this.tokens.looksLikeJwt(credential)) {
      throw DomainError.unauthenticated(Reason.TOKEN_INVALID, 'The token is invalid.');
    }
    return userPrincipal(await this.verifier.verify(credential));
  }

  /**
   * `authenticate` without a promise when everything it needs is cached, with the
   * same checks and errors; undefined when something would have to be read.
   */
  authenticateCached(credential: string): Principal | undefined {
    if (this.apiTokens.isApiToken(credential)) return this.apiTokens.authenticateCached(credential);
    if (!this.tokens.looksLikeJwt(credential)) return undefined;
    const verified = this.verifier.verifyCached(credential);
    return verified && userPrincipal(verified);
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
    if (!tx || tx.kind !== SIGN_IN || tx.status !== 'SUCCESS' || !tx.userId || !tx.completedAt || Date.now() - tx.completedAt.getTime() > SELF_PROOF_WINDOW_MS) {
      throw invalid();
    }
    // A social sign-in's id was handed to whoever started it, not to the browser that signed in: never a proof.
    if (tx.factors.includes('SOCIAL') || tx.data?.socialFlow !== undefined) throw invalid();
    const user = await this.users.findAuthState(db, tx.userId);
    // A password change since the sign-in revokes its proof.
    if (!user || (user.credentialsChangedAt && tx.completedAt.getTime() <= user.credentialsChangedAt.getTime())) throw invalid();
    return { kind: 'transaction', tenant, sectorId: user.sectorId, userId: user.id, transactionId };
  }
}

function userPrincipal({ claims, tenant, user }: VerifiedToken): Principal {
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
    sessionId: claims.sid,
    authTime: claims.auth_time,
  };
}
