import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { setBounded } from '../common/bounded-map';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { TenantEntity } from '../tenancy/tenant.entity';
import { CacheHandle } from '../tenancy/auth-state-cache';
import { UserAuthStates } from '../user/user-auth-states';
import { sessionActive, UserAuthState } from '../user/user.repository';
import { AccessTokenClaims, AccessTokenService, VerifiedSignature } from '../keys/access-token.service';

export interface VerifiedToken {
  claims: AccessTokenClaims;
  tenant: TenantEntity;
  /** The token's user as stored now. */
  user: UserAuthState;
}

/** Verified tokens remembered (signature checks are deterministic); oldest dropped first. */
const KNOWN_TOKENS_MAX = 50_000;

/**
 * A token whose signature this instance verified, with the verdict it last gave:
 * on a repeated token, one lookup by the token finds everything a cached answer
 * needs, and the verdict object stays the same while nothing it was made from
 * changed (so what callers derive from it can be kept with it).
 */
interface KnownToken extends VerifiedSignature {
  last?: { verdict: VerifiedToken; state: CacheHandle<UserAuthState> };
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
  private readonly known = new Map<string, KnownToken>();

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
    const { claims } = this.knownToken(token) ?? (await this.verifySignature(token));
    checkTenant(claims, tenantId);
    const tenant = await this.directory.tenantById(claims.tenantID);
    if (!tenant) throw invalid();
    // The user and, for a token of a session, that session's state: one query, or none on a cache hit.
    const user = await this.users.of(tenant, claims.sub, claims.sid);
    if (!user) throw invalid();
    accept(claims, user);
    return { claims, tenant, user };
  }

  /**
   * `verify` without a promise when everything it needs is cached (the token
   * verified before, its tenant, its user's state), with the same checks and
   * errors; undefined when something would have to be read. While none of those
   * changed, the answer is the same object.
   */
  verifyCached(token: string, tenantId?: string): VerifiedToken | undefined {
    const known = this.knownToken(token);
    if (known === undefined) return undefined;
    const { claims, last } = known;
    checkTenant(claims, tenantId);
    const tenant = this.directory.cachedTenant(claims.tenantID);
    if (tenant === undefined) return undefined;
    if (last !== undefined && last.verdict.tenant === tenant && this.users.stillCached(last.state)) {
      accept(claims, last.state.value);
      return last.verdict;
    }
    const state = this.users.cached(tenant, claims.sub, claims.sid);
    if (state === undefined) return undefined;
    accept(claims, state.value);
    const verdict = { claims, tenant, user: state.value };
    known.last = { verdict, state };
    return verdict;
  }

  /** The token as verified before, if it still holds (TOKEN_EXPIRED once it has expired); undefined when it must be verified. */
  private knownToken(token: string): KnownToken | undefined {
    const known = this.known.get(token);
    if (known === undefined) return undefined;
    try {
      if (this.tokens.stillValid(known)) return known;
    } catch (err) {
      this.known.delete(token);
      throw err;
    }
    this.known.delete(token);
    return undefined;
  }

  private async verifySignature(token: string): Promise<KnownToken> {
    const verified = await this.tokens.verify(token);
    const known: KnownToken = { claims: verified.claims, kid: verified.kid };
    setBounded(this.known, token, known, KNOWN_TOKENS_MAX);
    return known;
  }
}

const invalid = () => DomainError.unauthenticated(Reason.TOKEN_INVALID, 'The token is invalid.');

/** With `tenantId`, a token of another tenant is PERMISSION_DENIED / TENANT_MISMATCH. */
function checkTenant(claims: AccessTokenClaims, tenantId: string | undefined): void {
  if (tenantId !== undefined && claims.tenantID !== tenantId) {
    throw DomainError.permissionDenied('The token belongs to another tenant.', Reason.TENANT_MISMATCH);
  }
}

/** The token's user as stored now must still hold it (checked on every use: a session's expiry is a matter of time). */
function accept(claims: AccessTokenClaims, user: UserAuthState): void {
  if (user.sectorId !== claims.sectorID || user.disabled) throw invalid();
  if (claims.sid !== undefined) {
    // A token of a session lives and dies with it (logout, revocation, password change or reset, replayed refresh token).
    if (!sessionActive(user)) throw DomainError.unauthenticated(Reason.SESSION_REVOKED, 'The session of this token was ended or has expired.');
  } else if ((claims.cv ?? 0) !== user.credentialVersion && claims.jti !== user.keptTokenJti) {
    // A token from before sessions: a password change revokes every one issued before it but the one that made the change.
    throw DomainError.unauthenticated(Reason.TOKEN_INVALID, 'The token was revoked by a password change.');
  }
}
