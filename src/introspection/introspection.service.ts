import { Injectable } from '@nestjs/common';
import { AccessTokenVerifier, VerifiedToken } from '../credentials/access-token-verifier';
import { Principal } from '../access/principal';
import { int64 } from '../common/wire/wire';
import { IntrospectionResponse } from './dto/introspection.dto';

@Injectable()
export class IntrospectionService {
  /**
   * The answer serialized for each cached verdict: the answer is a pure function of
   * it, and the verifier gives the same verdict object only while its token, tenant
   * and user state are unchanged (a change makes a new one, so its answer goes with it).
   */
  private readonly payloads = new WeakMap<VerifiedToken, SerializedAnswer>();

  constructor(private readonly verifier: AccessTokenVerifier) {}

  /**
   * Validates a token for a caller of the same tenant: signature against the
   * cached keys, exact expiry, and a user that still exists, with their admin flag,
   * roles and permissions as stored now (one read, or none from the cache).
   */
  async introspect(caller: Principal, token: string): Promise<IntrospectionResponse> {
    return answerOf(await this.verifier.verify(token, caller.tenant.id));
  }

  /**
   * `introspect`'s answer as JSON, without a promise, when everything it needs
   * is cached (undefined otherwise): serialized once per token and user state, so a
   * repeated introspection writes the same bytes again, however many roles and
   * permissions the answer carries.
   */
  introspectCachedPayload(caller: Principal, token: string): SerializedAnswer | undefined {
    const verified = this.verifier.verifyCached(token, caller.tenant.id);
    if (!verified) return undefined;
    const memo = this.payloads.get(verified);
    if (memo !== undefined) return memo;
    const json = JSON.stringify(answerOf(verified));
    const payload = new SerializedAnswer(json, Buffer.byteLength(json));
    this.payloads.set(verified, payload);
    return payload;
  }
}

/** An answer serialized once: its JSON text (a string, so Node writes it in one chunk with the headers) and its length in bytes. */
export class SerializedAnswer {
  constructor(
    readonly json: string,
    readonly bytes: number,
  ) {}
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
