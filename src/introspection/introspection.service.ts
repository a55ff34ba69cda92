import { Injectable } from '@nestjs/common';
import { AccessTokenVerifier, VerifiedToken } from '../credentials/access-token-verifier';
import { Principal } from '../access/principal';
import { int64 } from '../common/wire/wire';
import { IntrospectionResponse } from './dto/introspection.dto';

@Injectable()
export class IntrospectionService {
  constructor(private readonly verifier: AccessTokenVerifier) {}

  /**
   * Validates a token for a caller of the same tenant: signature against the
   * cached keys, exact expiry, and a user that still exists, with their admin flag,
   * roles and permissions as stored now (one read, or none from the cache).
   */
  async introspect(caller: Principal, token: string): Promise<IntrospectionResponse> {
    return answerOf(await this.verifier.verify(token, caller.tenant.id));
  }

  /** `introspect` without a promise when everything it needs is cached; undefined otherwise. */
  introspectCached(caller: Principal, token: string): IntrospectionResponse | undefined {
    const verified = this.verifier.verifyCached(token, caller.tenant.id);
    return verified && answerOf(verified);
  }
}

function answerOf({ claims, user }: VerifiedToken): IntrospectionResponse {
  return {
    sub: user.id,
    username: user.username,
    sectorID: user.sectorId,
    isAdmin: user.isAdmin,
    roles: user.roles,
    permissions: user.permissions,
    exp: int64(claims.exp),
    iat: int64(claims.iat),
    tenantID: claims.tenantID,
  };
}
