import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import type { TargetUserRef } from '../settings/request-targets';
import { ListOidcGrantsResponse, OidcGrantResponse, RevokeOidcGrantResponse } from './dto/oidc-grant.dto';
import { OidcStorageRepository, StoredGrant } from './oidc-storage.repository';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/**
 * The apps a user has let in through their sector's OpenID Provider, one entry
 * per app (a user can hold several grants for one app, one per browser session
 * of a first-party app), and taking that access back: revoking an app's grants
 * ends every code and token issued under them (refresh tokens fail, introspection
 * answers inactive), and a third-party app asks for consent again next time.
 */
@Injectable()
export class OidcGrantService {
  constructor(
    private readonly storage: OidcStorageRepository,
    private readonly audit: AuditService,
  ) {}

  async list(target: TargetUserRef): Promise<ListOidcGrantsResponse> {
    const rows = await this.storage.listGrants(target.scope.db, target.scope.route.sectorId, target.id);
    const byClient = new Map<string, StoredGrant[]>();
    for (const row of rows) byClient.set(row.clientId, [...(byClient.get(row.clientId) ?? []), row]);
    const grants = [...byClient.values()].map(toGrantResponse);
    grants.sort((x, y) => x.grantedAt.localeCompare(y.grantedAt) || x.clientName.localeCompare(y.clientName) || x.clientID.localeCompare(y.clientID));
    return { grants };
  }

  async revoke(target: TargetUserRef, clientId: string): Promise<RevokeOidcGrantResponse> {
    const { db, route } = target.scope;
    await db.transaction(async (tx) => {
      const revoked = await this.storage.revokeGrants(tx, route.sectorId, target.id, clientId);
      if (revoked === 0) throw DomainError.notFound(Reason.OIDC_GRANT_NOT_FOUND, 'The user has granted nothing to this app.');
      await this.audit.record(tx, { type: 'oidc_grant.revoked', sectorId: route.sectorId, target: { kind: 'user', id: target.id }, details: { clientID: clientId } });
    });
    return { clientID: clientId };
  }
}

/** One app's grants as one entry: the union of what they grant, the first grant's time, the last expiry. */
function toGrantResponse(grants: StoredGrant[]): OidcGrantResponse {
  const [first] = grants;
  const text = (key: string): string | undefined => (typeof first.metadata[key] === 'string' ? (first.metadata[key] as string) : undefined);
  const scopes = new Set<string>();
  const claims = new Set<string>();
  for (const { grant } of grants) {
    const openid = (grant.openid ?? {}) as { scope?: string; claims?: string[] };
    for (const s of (openid.scope ?? '').split(' ').filter(Boolean)) scopes.add(s);
    for (const c of openid.claims ?? []) claims.add(c);
  }
  const iat = Math.min(...grants.map((g) => Number(g.grant.iat)));
  const exp = Math.max(...grants.map((g) => (g.expiresAt ? g.expiresAt.getTime() / 1000 : Number(g.grant.exp))));
  return {
    clientID: first.clientId,
    clientName: text('client_name') ?? first.clientId,
    ...(text('logo_uri') ? { logoURI: text('logo_uri') } : {}),
    ...(text('client_uri') ? { clientURI: text('client_uri') } : {}),
    firstParty: first.firstParty,
    scopes: [...scopes],
    claims: [...claims].filter((c) => c !== 'sid'),
    grantedAt: iso(iat),
    expiresAt: iso(exp),
  };
}
