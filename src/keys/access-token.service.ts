import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { isUuid } from '../common/wire/wire';
import { KeyService, SIGNING_ALG } from './key.service';

/** The claims of an access token (docs/api.md, Credentials). */
export interface AccessTokenClaims {
  sub: string;
  iat: number;
  exp: number;
  jti: string;
  iss: string;
  tenantID: string;
  sectorID: string;
  username: string;
  isAdmin: boolean;
  /** The user's roles in the sector at issuance (absent on tokens issued before roles existed). */
  roles?: string[];
  /** The union of those roles' permissions at issuance. */
  permissions?: string[];
  /** The user's credential version at issuance: a password change raises it and so revokes the token. Absent means 0. */
  cv?: number;
  /** The session the token belongs to (absent on tokens issued before sessions existed); revoking the session revokes the token. */
  sid?: string;
  /** When the user last authenticated (Unix seconds): the sign-in that started the session, kept across refreshes. Absent on older tokens. */
  auth_time?: number;
}

export interface IssueTokenInput {
  tenantId: string;
  kid: string;
  sectorId: string;
  userId: string;
  username: string;
  isAdmin: boolean;
  roles: string[];
  permissions: string[];
  credentialVersion: number;
  ttlSeconds: number;
  /** The session the token belongs to (its `sid`). */
  sessionId?: string;
  /** When the user authenticated (Unix seconds), the token's `auth_time`. */
  authTime?: number;
  /** Claims extension modules add (src/keys/token-claims.ts); reserved names among them are ignored. */
  extraClaims?: Readonly<Record<string, unknown>>;
}

/**
 * The claims the service sets or that mean something to those who check tokens
 * (JWT's registered claims, OAuth's and OpenID's): extension modules cannot set
 * or change them (docs/extending.md).
 */
export const RESERVED_CLAIMS: ReadonlySet<string> = new Set([
  'sub', 'iat', 'exp', 'jti', 'iss', 'aud', 'nbf',
  'tenantID', 'sectorID', 'username', 'isAdmin', 'roles', 'permissions', 'cv', 'sid', 'auth_time',
  'typ', 'scope', 'client_id', 'azp', 'amr', 'acr', 'cnf', 'act', 'may_act', 'nonce', 'at_hash', 'c_hash',
]);

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** A token whose signature, issuer and key owner held: its claims, and the key that signed it. */
export interface VerifiedSignature {
  readonly claims: AccessTokenClaims;
  readonly kid: string;
}

/** Signs access tokens with the tenant's current key and verifies them against the cached public keys. */
@Injectable()
export class AccessTokenService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jwt: JwtService,
    private readonly keys: KeyService,
  ) {}

  async issue(input: IssueTokenInput): Promise<{ token: string; claims: AccessTokenClaims }> {
    const privateKey = await this.keys.privateKey(input.kid);
    const iat = Math.floor(Date.now() / 1000);
    const claims: AccessTokenClaims = {
      sub: input.userId,
      iat,
      exp: iat + input.ttlSeconds,
      jti: randomUUID(),
      iss: this.config.publicUrl,
      tenantID: input.tenantId,
      sectorID: input.sectorId,
      username: input.username,
      isAdmin: input.isAdmin,
      roles: input.roles,
      permissions: input.permissions,
      cv: input.credentialVersion,
      ...(input.sessionId ? { sid: input.sessionId } : {}),
      ...(input.authTime !== undefined ? { auth_time: input.authTime } : {}),
    };
    await this.keys.noteTokenTtl(input.kid, input.ttlSeconds);
    const payload = input.extraClaims ? { ...withoutReserved(input.extraClaims), ...claims } : claims;
    const token = await this.jwt.signAsync(payload, { privateKey, algorithm: SIGNING_ALG, keyid: input.kid });
    return { token, claims };
  }

  /** Looks like a JWT (three base64url parts)? API tokens do not. */
  looksLikeJwt(credential: string): boolean {
    return JWT_SHAPE.test(credential);
  }

  /**
   * What can change since `verify` accepted a token, checked again: its expiry
   * (exact: TOKEN_EXPIRED) and whether its key is still published (false when not:
   * then `verify` decides afresh). Signature checks are deterministic, so a caller
   * may remember `verify`'s answer and ask only this.
   */
  stillValid(verified: VerifiedSignature): boolean {
    if (Math.floor(Date.now() / 1000) >= verified.claims.exp) throw DomainError.unauthenticated(Reason.TOKEN_EXPIRED, 'The token has expired.');
    return this.keys.isPublished(verified.kid);
  }

  /**
   * Verifies signature, issuer and expiry (exact, no leeway) and that the token's
   * tenant is the owner of the key that signed it. TOKEN_INVALID / TOKEN_EXPIRED otherwise.
   */
  async verify(token: string): Promise<VerifiedSignature> {
    const invalid = () => DomainError.unauthenticated(Reason.TOKEN_INVALID, 'The token is invalid.');
    if (!this.looksLikeJwt(token)) throw invalid();
    let decoded: { header?: { kid?: unknown; alg?: unknown } } | null;
    try {
      decoded = this.jwt.decode<{ header?: { kid?: unknown; alg?: unknown } } | null>(token, { complete: true });
    } catch {
      throw invalid(); // a header or payload that is not JSON (jws.decode throws on `typ: JWT`)
    }
    const kid = decoded?.header?.kid;
    if (typeof kid !== 'string' || decoded?.header?.alg !== SIGNING_ALG) throw invalid();
    const entry = await this.keys.publicKey(kid);
    if (!entry) throw invalid();
    let claims: AccessTokenClaims;
    try {
      claims = await this.jwt.verifyAsync<AccessTokenClaims>(token, {
        publicKey: this.keys.verificationKey(entry) as unknown as string, // jsonwebtoken accepts a KeyObject; the typings lag behind
        algorithms: [SIGNING_ALG],
        issuer: this.config.publicUrl,
        clockTolerance: 0,
      });
    } catch (err) {
      if ((err as Error).name === 'TokenExpiredError') {
        throw DomainError.unauthenticated(Reason.TOKEN_EXPIRED, 'The token has expired.');
      }
      throw invalid();
    }
    if (claims.tenantID !== entry.tenantId || !isUuid(claims.sub) || !isUuid(claims.sectorID) || (claims.sid !== undefined && !isUuid(claims.sid))) throw invalid();
    return { claims, kid };
  }
}

function withoutReserved(claims: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(claims).filter(([name]) => !RESERVED_CLAIMS.has(name)));
}
