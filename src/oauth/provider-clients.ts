import { Inject, Injectable, Logger } from '@nestjs/common';
import { createPrivateKey, KeyObject, sign } from 'node:crypto';
type OpenIdClient = typeof import('openid-client', { with: { 'resolution-mode': 'import' } });
type ServerMetadata = import('openid-client', { with: { 'resolution-mode': 'import' } }).ServerMetadata;
type Configuration = import('openid-client', { with: { 'resolution-mode': 'import' } }).Configuration;
type CustomFetch = import('openid-client', { with: { 'resolution-mode': 'import' } }).CustomFetch;
import { DomainError } from '../common/errors/domain-error';
import { OutboundFetch, outboundFetch, outboundRefusal, outboundUrlProblem } from '../common/http/outbound';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ProviderFault, providerFault, providerUnavailable } from './provider-failure';
import type { SocialProof } from './social.strategy';
import type { ProviderName } from './oauth-provider.entity';

/** A provider's configuration with its secrets opened (in memory only, for one request). */
export interface ResolvedProvider {
  name: ProviderName;
  clientId: string;
  clientSecret: string;
  teamId: string;
  keyId: string;
  privateKeyPem: string;
  redirectUri: string;
  issuerUrl: string;
  appId: string;
}

/** What a flow keeps between initiate and callback (the transaction's internal `data.oauth`). */
export interface PendingOAuth {
  provider: ProviderName;
  codeVerifier: string;
  nonce?: string;
  /** The client's page to return to (the initiate `redirectURI`). */
  returnTo: string;
}

const FETCH_TIMEOUT_MS = 10_000;
const METADATA_TTL_MS = 10 * 60_000;
const APPLE_AUDIENCE = 'https://appleid.apple.com';
/** The discovered endpoints the service (or the browser) is sent to, each checked against the endpoint rules. */
const CHECKED_ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri'] as const;
/** Google's discovery names its token, user-info and key endpoints on these hosts, not on the issuer's. */
const GOOGLE_ENDPOINT_HOSTS = ['oauth2.googleapis.com', 'openidconnect.googleapis.com', 'www.googleapis.com'];

/** Providers answered through OpenID Connect (discovery, ID token). */
export function isOidcProvider(name: ProviderName): boolean {
  return name !== 'github';
}

/**
 * Talks to the identity providers: builds the authorization URL and turns the
 * callback's code into a verified identity. OpenID providers (`oidc`, `google`,
 * `apple`) go through `openid-client` (discovery, PKCE, the ID token's signature,
 * issuer, audience and nonce); GitHub through its OAuth and user APIs (the
 * primary verified email). Apple authenticates the client with an ES256 JWT, a
 * GitHub App with an RS256 app JWT instead of a client secret.
 *
 * Every request goes through the outbound fetch (src/common/http/outbound.ts):
 * https only (http to loopback outside production), public addresses only
 * (checked on the address connected to), no redirects followed. An issuer and
 * every endpoint its discovery names must pass those rules and sit on the
 * issuer's host or on a host of OAUTH_ENDPOINT_HOSTS; otherwise the discovery is
 * not used and the sign-in fails with PROVIDER_ENDPOINT_NOT_ALLOWED.
 *
 * A provider that cannot be used now — unreachable, timing out, answering an
 * HTTP 5xx or something that is not its protocol's answer, a discovery naming
 * another issuer, or refusing our client (invalid_client) — fails the sign-in
 * with UNAVAILABLE / SOCIAL_PROVIDER_UNAVAILABLE and a message for the end
 * user; the technical cause goes to the log (and to the admin's Test, see
 * ProviderTester). A bad or used code and an ID token that fails its checks
 * stay OAUTH_EXCHANGE_FAILED.
 */
@Injectable()
export class ProviderClients {
  private readonly logger = new Logger('SocialLogin');
  private client?: Promise<OpenIdClient>;
  private readonly metadata = new Map<string, { at: number; server: Promise<ServerMetadata> }>();
  /** The outbound fetch every call to a provider goes through. */
  readonly fetch: OutboundFetch;
  /** Loopback hosts (and http to them) may be reached: outside production. */
  readonly allowLoopback: boolean;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.allowLoopback = config.nodeEnv !== 'production';
    this.fetch = outboundFetch({ allowLoopback: this.allowLoopback, timeoutMs: FETCH_TIMEOUT_MS });
  }

  /** Drops the cached discovery of an issuer (its provider configuration was saved): the next sign-in discovers it again. */
  forgetDiscovery(issuer: string): void {
    this.metadata.delete(issuer);
  }

  async authorizationUrl(p: ResolvedProvider, state: string, pending: PendingOAuth): Promise<string> {
    const client = await this.lib();
    const challenge = await client.calculatePKCECodeChallenge(pending.codeVerifier);
    if (p.name === 'github') {
      const url = new URL(`${this.config.oauthGithubBaseUrl}/login/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: p.clientId,
        redirect_uri: p.redirectUri,
        scope: 'read:user user:email',
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).toString();
      return url.href;
    }
    const configuration = await this.discovered(p);
    const params: Record<string, string> = {
      redirect_uri: p.redirectUri,
      response_type: 'code',
      scope: p.name === 'apple' ? 'openid email' : 'openid email profile',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    if (pending.nonce) params.nonce = pending.nonce;
    // Apple answers with a form post whenever the email scope is asked (POST /api/v1/oauth/apple/callback).
    if (p.name === 'apple') params.response_mode = 'form_post';
    return client.buildAuthorizationUrl(configuration, params).href;
  }

  /** Exchanges the callback's code (with the PKCE verifier) and answers the verified identity; a refusal is UNAUTHENTICATED / OAUTH_EXCHANGE_FAILED. */
  async exchange(p: ResolvedProvider, query: Record<string, string>, state: string, pending: PendingOAuth): Promise<SocialProof> {
    try {
      return p.name === 'github' ? await this.github(p, query, pending) : await this.oidc(p, query, state, pending);
    } catch (err) {
      if (err instanceof DomainError) throw err;
      const refusal = this.refused(p.name, err);
      if (refusal) throw refusal;
      const fault = providerFault(err);
      throw fault ? this.unavailable(p.name, fault) : exchangeFailed(p.name, err);
    }
  }

  private async oidc(p: ResolvedProvider, query: Record<string, string>, state: string, pending: PendingOAuth): Promise<SocialProof> {
    const client = await this.lib();
    const configuration = await this.discovered(p);
    const current = new URL(p.redirectUri);
    for (const [k, v] of Object.entries(query)) current.searchParams.set(k, v);
    const tokens = await client.authorizationCodeGrant(configuration, current, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedNonce: pending.nonce,
      expectedState: state,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('no ID token');
    const email = typeof claims.email === 'string' ? claims.email : '';
    const verified = claims.email_verified === true || claims.email_verified === 'true';
    const name = typeof claims.name === 'string' ? claims.name : '';
    return { provider: p.name, subject: String(claims.sub), email, emailVerified: verified, name };
  }

  private async github(p: ResolvedProvider, query: Record<string, string>, pending: PendingOAuth): Promise<SocialProof> {
    const { url: tokenUrl, init } = this.githubTokenRequest(p, query.code ?? '', pending.codeVerifier);
    const tokenRes = await this.fetch(tokenUrl, init);
    if (tokenRes.status >= 500) throw new ProviderFault(`${tokenUrl} answered HTTP ${tokenRes.status}`);
    const token = (await tokenRes.json().catch(() => undefined)) as { access_token?: string; error?: string } | undefined;
    if (token === undefined || typeof token !== 'object') throw new ProviderFault(`${tokenUrl} answered HTTP ${tokenRes.status} without JSON`);
    if (token.error === 'incorrect_client_credentials' || token.error === 'invalid_client') throw new ProviderFault(`${tokenUrl} refused the client (${token.error}): check the client ID and secret`);
    if (!tokenRes.ok || typeof token.access_token !== 'string') throw new Error(`token endpoint answered ${tokenRes.status} ${token.error ?? ''}`.trim());
    const api = async <T>(path: string): Promise<T> => {
      const res = await this.fetch(`${this.config.oauthGithubApiBaseUrl}${path}`, {
        headers: { Authorization: `Bearer ${token.access_token}`, Accept: 'application/vnd.github+json', 'User-Agent': 'iam-service' },
      });
      if (res.status >= 500) throw new ProviderFault(`${this.config.oauthGithubApiBaseUrl}${path} answered HTTP ${res.status}`);
      if (!res.ok) throw new Error(`${path} answered ${res.status}`);
      return (await res.json().catch(() => {
        throw new ProviderFault(`${this.config.oauthGithubApiBaseUrl}${path} answered without JSON`);
      })) as T;
    };
    const user = await api<{ id?: number | string; name?: string | null; login?: string }>('/user');
    if (user.id === undefined || user.id === null) throw new Error('the user API named no id');
    const emails = await api<Array<{ email?: string; primary?: boolean; verified?: boolean }>>('/user/emails');
    const primary = Array.isArray(emails) ? emails.find((e) => e.primary && typeof e.email === 'string') : undefined;
    return {
      provider: p.name,
      subject: String(user.id),
      email: primary?.email ?? '',
      emailVerified: primary?.verified === true,
      name: user.name ?? user.login ?? '',
    };
  }

  /** GitHub's token request for a code: the client secret, or a GitHub App's RS256 app JWT. */
  githubTokenRequest(p: ResolvedProvider, code: string, codeVerifier: string) {
    const body = new URLSearchParams({ client_id: p.clientId, code, redirect_uri: p.redirectUri, code_verifier: codeVerifier });
    const headers: Record<string, string> = { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': 'iam-service' };
    if (p.appId && p.privateKeyPem) {
      const now = Math.floor(Date.now() / 1000);
      headers.Authorization = `Bearer ${signJwt('RS256', createPrivateKey(p.privateKeyPem), {}, { iss: p.appId, iat: now - 60, exp: now + 540 })}`;
    } else {
      body.set('client_secret', p.clientSecret);
    }
    return { url: `${this.config.oauthGithubBaseUrl}/login/oauth/access_token`, init: { method: 'POST', headers, body } };
  }

  /**
   * The provider's configuration (discovery): a refusal of the outbound rules
   * is PROVIDER_ENDPOINT_NOT_ALLOWED, any other failure SOCIAL_PROVIDER_UNAVAILABLE.
   */
  private discovered(p: ResolvedProvider): Promise<Configuration> {
    return this.oidcConfiguration(p).catch((err: unknown) => {
      throw this.refused(p.name, err) ?? this.unavailable(p.name, providerFault(err) ?? describeError(err));
    });
  }

  private async oidcConfiguration(p: ResolvedProvider): Promise<Configuration> {
    const client = await this.lib();
    const issuer = this.issuerOf(p);
    const clientAuth =
      p.name === 'apple'
        ? client.ClientSecretPost(this.appleClientSecret(p))
        : p.clientSecret
          ? client.ClientSecretPost(p.clientSecret)
          : client.None();
    const server = await this.serverMetadata(issuer, p.name);
    const configuration = new client.Configuration(server, p.clientId, {}, clientAuth);
    configuration.timeout = FETCH_TIMEOUT_MS / 1000;
    // Token, user info and the key set go through the outbound fetch too.
    configuration[client.customFetch] = this.fetch as unknown as CustomFetch;
    if (new URL(issuer).protocol === 'http:') client.allowInsecureRequests(configuration);
    return configuration;
  }

  /**
   * Discovery through the outbound fetch, its endpoints checked against the
   * endpoint rules; kept ten minutes per issuer (a failed or refused one is
   * forgotten at once).
   */
  private serverMetadata(issuer: string, provider: ProviderName): Promise<ServerMetadata> {
    const cached = this.metadata.get(issuer);
    if (cached && Date.now() - cached.at < METADATA_TTL_MS) return cached.server;
    const server = (async () => {
      const client = await this.lib();
      const issuerUrl = new URL(issuer);
      const problem = outboundUrlProblem(issuerUrl, this.allowLoopback);
      if (problem) throw this.notAllowed(provider, `the issuer ${problem}`);
      const options = {
        [client.customFetch]: this.fetch as unknown as CustomFetch,
        timeout: FETCH_TIMEOUT_MS / 1000,
        ...(issuerUrl.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}),
      };
      const discovered = await client.discovery(issuerUrl, 'discovery', undefined, undefined, options);
      const metadata = discovered.serverMetadata();
      this.assertEndpointsAllowed(provider, issuerUrl, metadata);
      return metadata;
    })();
    server.catch(() => this.metadata.delete(issuer));
    this.metadata.set(issuer, { at: Date.now(), server });
    return server;
  }

  /**
   * Each endpoint the discovery names must pass the outbound rules and sit on
   * the issuer's host name, on a host of OAUTH_ENDPOINT_HOSTS or, for Google, on
   * Google's API hosts.
   */
  private assertEndpointsAllowed(provider: ProviderName, issuer: URL, metadata: ServerMetadata): void {
    for (const name of CHECKED_ENDPOINTS) {
      const value = metadata[name];
      if (value === undefined) continue;
      const problem = this.endpointProblem(provider, issuer, name, value);
      if (problem) throw this.notAllowed(provider, problem);
    }
  }

  /** Why a discovered endpoint breaks the endpoint rules (outbound rules, allowed hosts), in an admin's words; undefined when it passes. */
  endpointProblem(provider: ProviderName, issuer: URL, name: string, value: unknown): string | undefined {
    const hosts = new Set([issuer.hostname.toLowerCase(), ...this.config.oauthEndpointHosts, ...(provider === 'google' ? GOOGLE_ENDPOINT_HOSTS : [])]);
    let url: URL;
    try {
      url = new URL(String(value));
    } catch {
      return `${name} is not a URL`;
    }
    const problem = outboundUrlProblem(url, this.allowLoopback);
    if (problem) return `${name} ${problem}`;
    if (!hosts.has(url.hostname.toLowerCase())) return `${name} is on ${url.hostname}, not on the issuer's host or OAUTH_ENDPOINT_HOSTS`;
    return undefined;
  }

  /** A provider that cannot be used now: the cause to the log, SOCIAL_PROVIDER_UNAVAILABLE to the caller. */
  private unavailable(provider: ProviderName, cause: string): DomainError {
    this.logger.warn(`${provider} provider unavailable: ${cause.slice(0, 300)}`);
    return providerUnavailable(provider);
  }

  /** PROVIDER_ENDPOINT_NOT_ALLOWED for an error the outbound rules caused (a refused address, scheme or redirect); undefined otherwise. */
  private refused(provider: ProviderName, err: unknown): DomainError | undefined {
    if (err instanceof DomainError) return err.reason === Reason.PROVIDER_ENDPOINT_NOT_ALLOWED ? err : undefined;
    const refusal = outboundRefusal(err);
    return refusal ? this.notAllowed(provider, refusal.message) : undefined;
  }

  /**
   * The provider's issuer or one of its endpoints is not allowed (scheme, host,
   * address or a redirect): FAILED_PRECONDITION / PROVIDER_ENDPOINT_NOT_ALLOWED.
   * What was refused goes to the log, not to the caller.
   */
  private notAllowed(provider: ProviderName, detail: string): DomainError {
    this.logger.warn(`${provider} provider endpoint not allowed: ${detail.slice(0, 300)}`);
    return new DomainError(ErrorCode.FAILED_PRECONDITION, Reason.PROVIDER_ENDPOINT_NOT_ALLOWED, `${providerUnavailable(provider).message} (The sector's administrator must check this provider's configuration.)`, {
      metadata: { provider },
    });
  }

  /** The issuer whose discovery a provider uses: Google's and Apple's fixed ones (configurable for tests), the configured one for `oidc`. */
  issuerOf(p: Pick<ResolvedProvider, 'name' | 'issuerUrl'>): string {
    if (p.name === 'google') return this.config.oauthGoogleIssuer;
    if (p.name === 'apple') return this.config.oauthAppleBaseUrl;
    return p.issuerUrl;
  }

  /** Apple's client secret: an ES256 JWT by the team's key (iss = team ID, kid = key ID, sub = client ID). */
  private appleClientSecret(p: ResolvedProvider): string {
    const now = Math.floor(Date.now() / 1000);
    return signJwt('ES256', createPrivateKey(p.privateKeyPem), { kid: p.keyId }, { iss: p.teamId, iat: now, exp: now + 300, aud: APPLE_AUDIENCE, sub: p.clientId });
  }

  private lib(): Promise<OpenIdClient> {
    this.client ??= import('openid-client');
    return this.client;
  }
}

/** A compact JWS (ES256 or RS256) signed with node:crypto. */
function signJwt(alg: 'ES256' | 'RS256', key: KeyObject, header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${enc({ alg, typ: 'JWT', ...header })}.${enc(payload)}`;
  const signature = alg === 'ES256' ? sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }) : sign('sha256', Buffer.from(input), key);
  return `${input}.${signature.toString('base64url')}`;
}

/** An error's message for the log or an admin (long token-like runs cut out). */
export function describeError(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/[A-Za-z0-9_-]{40,}/g, '…').slice(0, 300);
}

function exchangeFailed(provider: string, err: unknown): DomainError {
  const detail = (err instanceof Error ? err.message : String(err)).replace(/[A-Za-z0-9_-]{20,}/g, '…').slice(0, 200);
  return new DomainError(ErrorCode.UNAUTHENTICATED, Reason.OAUTH_EXCHANGE_FAILED, `The ${provider} sign-in could not be verified.`, { metadata: { provider, detail } });
}
