import type { OidcClientInput, OidcClientResponse } from './dto/oidc-client.dto';
import type { OidcPayload, StoredOidcClient } from './oidc-storage.repository';

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** An app as the admin API shows it (never its secret). */
export function toOidcClientResponse(stored: StoredOidcClient, issuer: string): OidcClientResponse {
  const m = stored.metadata;
  const clientID = String(m.client_id);
  return {
    clientID,
    clientName: text(m.client_name) ?? clientID,
    redirectURIs: strings(m.redirect_uris),
    postLogoutRedirectURIs: strings(m.post_logout_redirect_uris),
    grantTypes: strings(m.grant_types),
    tokenEndpointAuthMethod: text(m.token_endpoint_auth_method) ?? 'client_secret_basic',
    jwksURI: text(m.jwks_uri),
    backchannelLogoutURI: text(m.backchannel_logout_uri),
    logoURI: text(m.logo_uri),
    clientURI: text(m.client_uri),
    policyURI: text(m.policy_uri),
    tosURI: text(m.tos_uri),
    firstParty: stored.firstParty,
    registrationClientURI: `${issuer}/reg/${encodeURIComponent(clientID)}`,
    createdAt: stored.createdAt.toISOString(),
    updatedAt: stored.updatedAt.toISOString(),
  };
}

/**
 * The RFC 7591 metadata of an admin's input, over what the app had before (its
 * other registered metadata is kept). Response types follow the grants: `code`
 * with the authorization code grant, none otherwise.
 */
export function toClientMetadata(input: OidcClientInput, clientId: string, before: OidcPayload = {}): OidcPayload {
  const grantTypes = input.grantTypes ?? ['authorization_code', 'refresh_token'];
  const metadata: OidcPayload = {
    ...before,
    client_id: clientId,
    client_name: input.clientName,
    redirect_uris: input.redirectURIs ?? [],
    post_logout_redirect_uris: input.postLogoutRedirectURIs ?? [],
    grant_types: grantTypes,
    response_types: grantTypes.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: input.tokenEndpointAuthMethod ?? 'client_secret_basic',
  };
  for (const [key, value] of [
    ['jwks_uri', input.jwksURI],
    ['backchannel_logout_uri', input.backchannelLogoutURI],
    ['logo_uri', input.logoURI],
    ['client_uri', input.clientURI],
    ['policy_uri', input.policyURI],
    ['tos_uri', input.tosURI],
  ] as const) {
    if (value === undefined) delete metadata[key];
    else metadata[key] = value;
  }
  return metadata;
}
