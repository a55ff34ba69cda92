import { Inject, Injectable } from '@nestjs/common';
import { DomainError, FieldViolation } from '../common/errors/domain-error';
import { outboundRefusal } from '../common/http/outbound';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SectorScope } from '../settings/sector-scope';
import type { ProviderCheckResponse, ProviderTestResponse } from './dto/oauth.dto';
import { isProviderName, PROVIDER_NAMES } from './oauth-provider.entity';
import { describeError, isOidcProvider, ProviderClients, ResolvedProvider } from './provider-clients';
import { ProviderConfigService } from './provider-config.service';
import { networkFailure } from './provider-failure';

/** The endpoints a sign-in through discovery needs (the service reads the ID token's claims, so user info is optional). */
const REQUIRED_ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const;
/** A code no provider issued: the token endpoint's answer to it says whether it accepted our client. */
const TEST_CODE = 'iam-provider-test';

type Check = ProviderCheckResponse;

/** What one HTTP request to a provider gave: the answer's status and JSON body, or why there was none (an admin's words). */
type Fetched = { ok: true; status: number; json: unknown } | { ok: false; detail: string };

/**
 * The Test of a social provider: what a sign-in would need, without signing
 * anyone in, each step a named check with an admin-readable detail. For the
 * providers found by discovery (`oidc`, `google`, `apple`): `configuration`
 * (the checks of a save), `discovery` (the issuer's document, through the
 * outbound rules), `issuer` (the document names the configured issuer),
 * `endpoints` (authorization, token and key set present and allowed by the
 * endpoint rules; user info too where named) and `jwks` (the key set answers
 * with a key usable for the ID token's algorithms). For GitHub:
 * `configuration`, `token_endpoint` (answers, and does not refuse the client
 * for a made-up code) and `api` (the user API answers). A check that cannot
 * run after a failed one is not listed. Secrets are used, never answered.
 */
@Injectable()
export class ProviderTester {
  constructor(
    private readonly providers: ProviderConfigService,
    private readonly clients: ProviderClients,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Tests a provider of the sector: its stored configuration, or `providers`
   * (an update's body, only this provider's entry, not saved) merged over it.
   */
  async run(scope: SectorScope, name: string, providers: Record<string, unknown> | undefined): Promise<ProviderTestResponse> {
    if (!isProviderName(name)) throw DomainError.invalidField('provider', `unknown provider; one of ${PROVIDER_NAMES.join(', ')}`);
    const others = Object.keys(providers ?? {}).filter((n) => n !== name);
    if (others.length > 0) throw DomainError.invalidArgument(`Only the tested provider (${name}) may be given.`, others.map((n) => ({ field: `providers.${n}`, description: `only ${name}, the provider tested, may be given` })));
    const { provider, violations } = await this.providers.candidate(scope, name, providers?.[name]);
    const checks = await this.test(provider, violations);
    return { ok: checks.every((c) => c.ok), checks };
  }

  private async test(p: ResolvedProvider, violations: FieldViolation[]): Promise<Check[]> {
    const checks: Check[] = [];
    const prefix = `providers.${p.name}.`;
    const words = violations.map((v) => `${v.field.startsWith(prefix) ? v.field.slice(prefix.length) : v.field} ${v.description}`);
    checks.push({ name: 'configuration', ok: words.length === 0, detail: words.length === 0 ? 'the configuration is complete' : words.join('; ') });
    if (violations.some((v) => v.field === `${prefix}issuerURL`)) return checks;
    if (isOidcProvider(p.name)) await this.oidc(p, checks);
    else await this.github(p, checks);
    return checks;
  }

  private async oidc(p: ResolvedProvider, checks: Check[]): Promise<void> {
    const issuer = this.clients.issuerOf(p);
    // The next sign-in discovers the issuer again, whatever this finds.
    this.clients.forgetDiscovery(issuer);
    const issuerUrl = new URL(issuer);
    const discoveryUrl = new URL(issuerUrl.href);
    discoveryUrl.pathname = `${issuerUrl.pathname.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const discovery = await this.get(discoveryUrl.href);
    if (!discovery.ok) return void checks.push({ name: 'discovery', ok: false, detail: discovery.detail });
    const doc = discovery.json;
    if (discovery.status !== 200 || !isObject(doc)) {
      const detail = discovery.status !== 200 ? `${discoveryUrl.href} answered HTTP ${discovery.status}` : `${discoveryUrl.href} did not answer a JSON object`;
      return void checks.push({ name: 'discovery', ok: false, detail });
    }
    checks.push({ name: 'discovery', ok: true, detail: `${discoveryUrl.href} answered` });

    const named = typeof doc.issuer === 'string' ? doc.issuer : '';
    const same = named !== '' && sameUrl(named, issuer);
    checks.push({ name: 'issuer', ok: same, detail: same ? `the document names ${issuer}` : named === '' ? 'the document names no issuer' : `issuer is ${issuer} but the document says ${named}` });
    if (!same) return;

    const problems: string[] = [];
    for (const name of REQUIRED_ENDPOINTS) if (typeof doc[name] !== 'string' || doc[name] === '') problems.push(`${name} is missing`);
    for (const name of [...REQUIRED_ENDPOINTS, 'userinfo_endpoint']) {
      if (doc[name] === undefined || doc[name] === '') continue;
      const problem = this.clients.endpointProblem(p.name, issuerUrl, name, doc[name]);
      if (problem) problems.push(problem);
    }
    checks.push({ name: 'endpoints', ok: problems.length === 0, detail: problems.length === 0 ? 'the authorization, token and key set endpoints are present and allowed' : problems.join('; ') });
    if (problems.length > 0) return;

    const jwksUri = String(doc.jwks_uri);
    const algs = signingAlgs(doc.id_token_signing_alg_values_supported);
    const jwks = await this.get(jwksUri);
    if (!jwks.ok) return void checks.push({ name: 'jwks', ok: false, detail: jwks.detail });
    if (jwks.status !== 200) return void checks.push({ name: 'jwks', ok: false, detail: `${jwksUri} answered HTTP ${jwks.status}` });
    const keys = isObject(jwks.json) && Array.isArray(jwks.json.keys) ? (jwks.json.keys as unknown[]) : undefined;
    if (!keys) return void checks.push({ name: 'jwks', ok: false, detail: `${jwksUri} did not answer a JSON Web Key Set` });
    const usable = keys.filter((k) => isObject(k) && usableKey(k, algs)).length;
    checks.push({
      name: 'jwks',
      ok: usable > 0,
      detail:
        usable > 0
          ? `${jwksUri} has ${usable} key${usable === 1 ? '' : 's'} usable for ${algs.join(', ')}`
          : `${jwksUri} has ${keys.length} key${keys.length === 1 ? '' : 's'}, none usable for ${algs.join(', ')} (the ID token's algorithms)`,
    });
  }

  private async github(p: ResolvedProvider, checks: Check[]): Promise<void> {
    const { url, init } = this.clients.githubTokenRequest(p, TEST_CODE, TEST_CODE);
    const token = await this.request(url, init);
    if (!token.ok) checks.push({ name: 'token_endpoint', ok: false, detail: token.detail });
    else {
      const error = isObject(token.json) && typeof token.json.error === 'string' ? token.json.error : '';
      if (token.status >= 500) checks.push({ name: 'token_endpoint', ok: false, detail: `${url} answered HTTP ${token.status}` });
      else if (token.json === undefined) checks.push({ name: 'token_endpoint', ok: false, detail: `${url} answered HTTP ${token.status} without JSON` });
      else if (error === 'incorrect_client_credentials' || error === 'invalid_client') checks.push({ name: 'token_endpoint', ok: false, detail: `${url} refused the client ID or secret (${error})` });
      else checks.push({ name: 'token_endpoint', ok: true, detail: `${url} answered HTTP ${token.status}${error ? ` (${error} for a test code; the client was not refused)` : ''}` });
    }
    const apiUrl = `${this.config.oauthGithubApiBaseUrl}/user`;
    const api = await this.get(apiUrl);
    if (!api.ok) checks.push({ name: 'api', ok: false, detail: api.detail });
    else if (api.status >= 500) checks.push({ name: 'api', ok: false, detail: `${apiUrl} answered HTTP ${api.status}` });
    else checks.push({ name: 'api', ok: true, detail: `${apiUrl} answered HTTP ${api.status}` });
  }

  private get(url: string): Promise<Fetched> {
    return this.request(url, { headers: { Accept: 'application/json', 'User-Agent': 'iam-service' } });
  }

  /** One request through the outbound fetch; a failure (refused by the outbound rules, unreachable, timed out) in an admin's words. */
  private async request(url: string, init: Parameters<ProviderClients['fetch']>[1]): Promise<Fetched> {
    try {
      const res = await this.clients.fetch(url, init);
      const text = await res.text();
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { ok: true, status: res.status, json };
    } catch (err) {
      const refusal = outboundRefusal(err);
      if (refusal) return { ok: false, detail: `${url} is not allowed by the outbound rules: ${refusal.message}` };
      return { ok: false, detail: `${url} could not be reached: ${networkFailure(err) ?? describeError(err)}` };
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/** The ID token's signing algorithms the document names (RS256 when it names none, as OpenID Connect Discovery has it). */
function signingAlgs(value: unknown): string[] {
  const algs = Array.isArray(value) ? value.filter((a): a is string => typeof a === 'string' && a !== 'none') : [];
  return algs.length > 0 ? algs : ['RS256'];
}

/** The key type an algorithm needs. */
function ktyOf(alg: string): string | undefined {
  if (/^(RS|PS)\d+$/.test(alg)) return 'RSA';
  if (/^ES\d+K?$/.test(alg)) return 'EC';
  if (alg === 'EdDSA' || alg === 'Ed25519') return 'OKP';
  return undefined;
}

/** A public signing key that verifies one of `algs`: use `sig` (or none), `verify` among its operations (or none), its type and algorithm fitting. */
function usableKey(key: Record<string, unknown>, algs: string[]): boolean {
  if (key.use !== undefined && key.use !== 'sig') return false;
  if (Array.isArray(key.key_ops) && !key.key_ops.includes('verify')) return false;
  const candidates = typeof key.alg === 'string' ? algs.filter((a) => a === key.alg) : algs;
  return candidates.some((alg) => ktyOf(alg) === key.kty);
}
