import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Principal } from '../access/principal';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { SectorScope } from '../settings/sector-scope';
import { CreateOidcClientResponse, ListOidcClientsResponse, OidcClientInput, OidcClientResponse, RotateOidcClientSecretResponse } from './dto/oidc-client.dto';
import { toClientMetadata, toOidcClientResponse } from './oidc-client.mapper';
import { OidcClientStore } from './oidc-client-store';
import { calledUrlProblem } from './called-urls';
import { OidcIssuer, OidcProviders } from './oidc-providers';
import { OidcPayload } from './oidc-storage.repository';

const notFound = () => DomainError.notFound(Reason.OIDC_CLIENT_NOT_FOUND, 'No such app in this sector.');

/** A confidential client's secret: 48 random bytes (RFC 7591's `client_secret`). */
const newSecret = () => randomBytes(48).toString('base64url');

/** Authentication methods that use a shared secret. */
const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post']);

/**
 * The apps of a sector's OpenID Provider as its admins manage them: what RFC 7591
 * registration makes, through the service's API (every app made here is
 * first-party), checked by the provider library's own client rules, with the secret
 * shown once at creation and rotation.
 */
@Injectable()
export class OidcClientService {
  constructor(
    private readonly providers: OidcProviders,
    private readonly clients: OidcClientStore,
  ) {}

  async list(scope: SectorScope): Promise<ListOidcClientsResponse> {
    const issuer = await this.issuer(scope);
    const stored = await this.clients.list(scope.db, scope.route.sectorId);
    return { issuer: issuer.issuer, clients: stored.map((c) => toOidcClientResponse(c, issuer.issuer)) };
  }

  async get(scope: SectorScope, clientId: string): Promise<OidcClientResponse> {
    const issuer = await this.issuer(scope);
    const stored = await this.clients.find(scope.db, scope.route.sectorId, clientId);
    if (!stored) throw notFound();
    return toOidcClientResponse(stored, issuer.issuer);
  }

  async create(scope: SectorScope, caller: Principal, input: OidcClientInput): Promise<CreateOidcClientResponse> {
    const issuer = await this.issuer(scope);
    const clientId = randomBytes(24).toString('base64url');
    const metadata = toClientMetadata(input, clientId, { client_id_issued_at: Math.floor(Date.now() / 1000) });
    const secret = SECRET_METHODS.has(String(metadata.token_endpoint_auth_method)) ? newSecret() : undefined;
    if (secret) metadata.client_secret = secret;
    await this.validate(issuer, metadata);
    const createdBy = caller.kind === 'user' ? `user:${caller.userId}` : caller.kind === 'apiToken' ? `apiToken:${caller.tokenId}` : null;
    await this.clients.save(scope.db, scope.route.sectorId, metadata, { firstParty: input.firstParty ?? true, createdBy });
    const stored = await this.clients.find(scope.db, scope.route.sectorId, clientId);
    return { client: toOidcClientResponse(stored!, issuer.issuer), ...(secret ? { clientSecret: secret } : {}) };
  }

  async update(scope: SectorScope, clientId: string, input: OidcClientInput): Promise<OidcClientResponse> {
    const issuer = await this.issuer(scope);
    const before = await this.clients.find(scope.db, scope.route.sectorId, clientId);
    if (!before) throw notFound();
    const metadata = toClientMetadata(input, clientId, before.metadata);
    // A secret stays while the app authenticates with one; one is made when it starts to (rotate to see it).
    if (!SECRET_METHODS.has(String(metadata.token_endpoint_auth_method))) delete metadata.client_secret;
    else if (typeof metadata.client_secret !== 'string') metadata.client_secret = newSecret();
    await this.validate(issuer, metadata);
    await this.clients.save(scope.db, scope.route.sectorId, metadata, { firstParty: input.firstParty ?? before.firstParty, createdBy: before.createdBy, replacesFirstParty: true });
    return this.get(scope, clientId);
  }

  async rotateSecret(scope: SectorScope, clientId: string): Promise<RotateOidcClientSecretResponse> {
    await this.issuer(scope);
    const before = await this.clients.find(scope.db, scope.route.sectorId, clientId);
    if (!before) throw notFound();
    if (!SECRET_METHODS.has(String(before.metadata.token_endpoint_auth_method ?? 'client_secret_basic'))) {
      throw DomainError.failedPrecondition(Reason.OIDC_CLIENT_HAS_NO_SECRET, 'This app does not authenticate with a client secret.');
    }
    const clientSecret = newSecret();
    await this.clients.save(scope.db, scope.route.sectorId, { ...before.metadata, client_secret: clientSecret }, { firstParty: before.firstParty, createdBy: before.createdBy });
    return { clientSecret };
  }

  async remove(scope: SectorScope, clientId: string): Promise<Record<string, never>> {
    await this.issuer(scope);
    if (!(await this.clients.remove(scope.db, scope.route.sectorId, clientId))) throw notFound();
    return {};
  }

  private async issuer(scope: SectorScope): Promise<OidcIssuer> {
    const issuer = await this.providers.issuerOfSector(scope.route.sectorId);
    if (!issuer) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
    return issuer;
  }

  /** The provider library's own rules for client metadata (RFC 7591) and the outbound rules for the URLs it calls, as the wire error of the field concerned. */
  private async validate(issuer: OidcIssuer, metadata: OidcPayload): Promise<void> {
    try {
      await issuer.provider.Client.validate(metadata as Parameters<OidcIssuer['provider']['Client']['validate']>[0]);
    } catch (err) {
      const description = (err as { error_description?: string }).error_description ?? (err as Error).message;
      const field = /redirect_uri/.test(description) ? 'redirectURIs' : /post_logout/.test(description) ? 'postLogoutRedirectURIs' : /grant_types|response_types/.test(description) ? 'grantTypes' : /backchannel/.test(description) ? 'backchannelLogoutURI' : /jwks/.test(description) ? 'jwksURI' : 'clientName';
      throw DomainError.invalidField(field, description);
    }
    const called = calledUrlProblem(metadata, this.providers.allowsPrivateNetworks);
    if (called) throw DomainError.invalidField(called.field, called.description);
  }
}
