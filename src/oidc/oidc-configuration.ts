import type { OutboundFetch } from '../common/http/outbound';
import type { PrivateJwk } from '../keys/key.service';
import type { OidcAdapter } from './oidc-adapter';
import { errorPage, escapeHtml, page } from './oidc-pages';

/**
 * The standard claims each scope releases (OpenID Connect Core §5.4), in ID tokens
 * and at userinfo (`roles` is the service's own scope). `auth_time`, `amr` and `sid` ride on `openid`, so every ID token
 * carries them without the app asking through the `claims` parameter (the account
 * answers `sid`, the provider session's id for the app, in ID tokens only).
 */
const SCOPE_CLAIMS: Record<string, string[]> = {
  openid: ['sub', 'auth_time', 'amr', 'sid'],
  profile: ['name', 'family_name', 'given_name', 'middle_name', 'nickname', 'preferred_username', 'profile', 'picture', 'website', 'gender', 'birthdate', 'zoneinfo', 'locale', 'updated_at'],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  address: ['address'],
  // The user's roles and permissions in the sector (the roles API): as of issuance in ID and access tokens, as of now at userinfo.
  roles: ['roles', 'permissions'],
};

/** Lifetimes, in seconds. */
const OIDC_TTL = {
  AccessToken: 3600,
  AuthorizationCode: 60,
  ClientCredentials: 600,
  DeviceCode: 600,
  IdToken: 3600,
  Interaction: 3600,
  RefreshToken: 14 * 24 * 3600,
  Session: 14 * 24 * 3600,
  Grant: 14 * 24 * 3600,
};

/** An account as the provider library asks for it: its id and its claims. */
export interface OidcAccount {
  accountId: string;
  /** `use`: `id_token` or `userinfo`. */
  claims(use: string): Promise<Record<string, unknown>>;
}

/** What the library tells `findAccount` of the artifact being redeemed: its session's id for the app, or where to find it. */
export interface OidcTokenSource {
  sid?: string;
  sessionUid?: string;
  clientId?: string;
}

/** What one issuer's configuration is made of. */
export interface OidcProviderInputs {
  adapter: (model: string) => OidcAdapter;
  /** The tenant's keys, current ones first (see KeyService.tenantSigningJwks). */
  jwks: PrivateJwk[];
  /** Keys that sign the provider's cookies (newest first). */
  cookieKeys: string[];
  /** Where the sign-in page takes over an interaction. */
  interactionUrl: (uid: string) => string;
  /** The account of `sub`; `source`: the code, refresh token or device code being redeemed, when there is one (for the ID token's `sid`). */
  findAccount: (sub: string, source: OidcTokenSource | undefined) => Promise<OidcAccount | undefined>;
  /** The user's roles and permissions now (for access tokens issued with the `roles` scope); undefined for an unknown user. */
  grants: (sub: string) => Promise<{ roles: string[]; permissions: string[] } | undefined>;
  /** Outbound calls to URLs clients registered (back-channel logout, request URIs, JWKS URIs). */
  fetch: OutboundFetch;
  /** The library's InvalidRequest error class. */
  invalidRequest: new (description: string) => Error;
}

/* The library's callbacks take its context and models, which it does not type; only the fields read here are named. */
interface ProviderContext {
  type: string;
  body: unknown;
  host: string;
  oidc: { route: string; client?: { clientId: string; clientName?: string } };
}
interface ProviderClient {
  clientId: string;
  clientName?: string;
  clientAuthMethod: string;
  redirectUris: string[];
}
interface ProviderToken {
  clientId?: string;
  kind?: string;
  accountId?: string;
  scope?: string;
}

/**
 * The configuration of one sector's OpenID Provider (`oidc-provider`), set to the
 * service's contract where the library's defaults differ: authorization code flow
 * only, PKCE S256 required of public clients, ID tokens RS256 unless a client
 * registers ES256, the scopes' standard claims in the ID token itself, refresh
 * tokens rotated on every use, dynamic registration and its management (RFC 7591,
 * 7592; the initial access token is checked in front of the library, see
 * OidcHttp), client credentials, device flow, introspection, revocation, RP-initiated
 * and back-channel logout; opaque access tokens (never credentials for /api/v1).
 */
export function oidcConfiguration(inputs: OidcProviderInputs): Record<string, unknown> {
  return {
    adapter: inputs.adapter,
    jwks: { keys: inputs.jwks },
    cookies: {
      keys: inputs.cookieKeys,
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' },
    },
    fetch: inputs.fetch,
    scopes: ['openid', 'offline_access', ...Object.keys(SCOPE_CLAIMS).filter((s) => s !== 'openid')],
    claims: SCOPE_CLAIMS,
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      id_token_signed_response_alg: 'RS256',
      token_endpoint_auth_method: 'client_secret_basic',
      // Logout tokens name the session (`sid`), so an app ends just that one.
      backchannel_logout_session_required: true,
    },
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256', 'ES256'],
      userinfoSigningAlgValues: ['RS256', 'ES256'],
      introspectionSigningAlgValues: ['RS256', 'ES256'],
      authorizationSigningAlgValues: ['RS256', 'ES256'],
      clientAuthSigningAlgValues: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      requestObjectSigningAlgValues: ['RS256', 'PS256', 'ES256', 'EdDSA'],
    },
    pkce: { required: (_ctx: ProviderContext, client: ProviderClient) => client.clientAuthMethod === 'none' },
    ttl: OIDC_TTL,
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx: ProviderContext, client: { grantTypeAllowed(type: string): boolean }, source: { scopes: Set<string> }) =>
      client.grantTypeAllowed('refresh_token') && source.scopes.has('offline_access'),
    interactions: { url: async (_ctx: ProviderContext, interaction: { uid: string }) => inputs.interactionUrl(interaction.uid) },
    findAccount: async (_ctx: ProviderContext, sub: string, token?: OidcTokenSource) => inputs.findAccount(sub, token),
    // An access token issued with the `roles` scope carries the user's roles and permissions as of issuance (introspection answers them).
    extraTokenClaims: async (_ctx: ProviderContext, token: ProviderToken) =>
      token.kind === 'AccessToken' && token.accountId && (token.scope ?? '').split(' ').includes('roles') ? inputs.grants(token.accountId) : undefined,
    clientBasedCORS: (ctx: ProviderContext, origin: string, client: ProviderClient) => {
      if (origin === 'null') return false;
      if (ctx.oidc.route !== 'userinfo' && client.clientAuthMethod !== 'none') return false;
      return client.redirectUris.some((uri) => URL.parse(uri)?.origin === origin);
    },
    renderError: async (ctx: ProviderContext, out: { error?: string; error_description?: string }) => {
      ctx.type = 'html';
      ctx.body = errorPage(out);
    },
    features: {
      devInteractions: { enabled: false },
      // OpenID Connect's claims parameter (OpenID Connect Core §5.5).
      claimsParameter: { enabled: true },
      registration: { enabled: true, initialAccessToken: false },
      registrationManagement: { enabled: true, rotateRegistrationAccessToken: true },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        // A public client learns about its own tokens only; a confidential one (a resource server) about any of the issuer's.
        allowedPolicy: async (_ctx: ProviderContext, client: ProviderClient, token: ProviderToken) => client.clientAuthMethod !== 'none' || token.clientId === client.clientId,
      },
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx: ProviderContext, client: ProviderClient, token: ProviderToken) => {
          if (token.clientId === client.clientId) return true;
          if (client.clientAuthMethod === 'none') return false;
          throw new inputs.invalidRequest('client is not authorized to revoke the presented token');
        },
      },
      deviceFlow: {
        enabled: true,
        userCodeInputSource: async (ctx: ProviderContext, form: string, _out: unknown, err?: { name?: string; userCode?: string }) => {
          const message = !err ? 'Enter the code shown on your device.' : err.userCode || err.name === 'NoCodeError' ? 'That code is not valid. Try again.' : 'The request could not be completed.';
          ctx.body = page('Connect a device', `<p>${escapeHtml(message)}</p>${form}<button type="submit" form="op.deviceInputForm">Continue</button>`);
        },
        userCodeConfirmSource: async (ctx: ProviderContext, form: string, client: ProviderClient, _info: unknown, userCode: string) => {
          const name = client.clientName || client.clientId;
          ctx.body = page(
            'Confirm the device',
            `<p><strong>${escapeHtml(name)}</strong> asks to sign in. Go on only if your device shows this code:</p><p><code>${escapeHtml(userCode)}</code></p>${form}` +
              `<button autofocus type="submit" form="op.deviceConfirmForm">Continue</button> <button type="submit" form="op.deviceConfirmForm" value="yes" name="abort">Cancel</button>`,
          );
        },
        successSource: async (ctx: ProviderContext) => {
          ctx.body = page('Device connected', '<p>You can go back to your device.</p>');
        },
      },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: ProviderContext, form: string) => {
          ctx.body = page(
            'Sign out',
            `<p>Sign out of ${escapeHtml(ctx.host)}?</p>${form}<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Sign out</button> <button type="submit" form="op.logoutForm">Stay signed in</button>`,
          );
        },
        postLogoutSuccessSource: async (ctx: ProviderContext) => {
          ctx.body = page('Signed out', '<p>You are signed out.</p>');
        },
      },
      backchannelLogout: { enabled: true },
    },
  };
}
