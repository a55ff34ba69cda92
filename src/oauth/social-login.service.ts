import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { SecretBox } from '../common/crypto/secret-box';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import type { AuthResultResponse } from '../auth/dto/auth.dto';
import { AuthTransactionRepository } from '../auth/engine/auth-transaction.repository';
import { SignInEngine, SIGN_IN } from '../auth/engine/sign-in-engine';
import { SocialStrategy } from '../auth/strategies/social.strategy';
import { SectorRepository } from '../sector/sector.repository';
import { SectorScope, SectorScopes } from '../settings/sector-scope';
import { tenantOfRoutedId } from '../tenancy/routed-id';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { ThrottleService } from '../throttle/throttle.service';
import { OAuthCallbackQuery, OAuthInitiateDto, OAuthInitiateResponse } from './dto/oauth.dto';
import { isProviderName, ProviderName } from './oauth-provider.entity';
import { isOidcProvider, PendingOAuth, ProviderClients } from './provider-clients';
import { ProviderConfigService } from './provider-config.service';

/** Seal purpose of the sign-in result a social callback leaves for the token exchange. */
const RESULT_SEAL = 'oauth-sign-in-result';
/** How long after its completion a social sign-in's token can be fetched. */
export const TOKEN_EXCHANGE_WINDOW_SECONDS = 120;

/**
 * Social login (operation 17 and what follows it): initiate starts an
 * anonymous sign-in transaction whose id is the OAuth `state` (the PKCE
 * verifier and the nonce stay in its internal data); the callback claims that
 * state once, has the provider's answer verified, records the SOCIAL factor on
 * the engine and sends the browser back to the client's page with the
 * transactionID; the token exchange hands out the result once.
 */
@Injectable()
export class SocialLoginService {
  private readonly logger = new Logger('SocialLogin');

  constructor(
    private readonly engine: SignInEngine,
    private readonly strategy: SocialStrategy,
    private readonly transactions: AuthTransactionRepository,
    private readonly providers: ProviderConfigService,
    private readonly clients: ProviderClients,
    private readonly sectors: SectorRepository,
    private readonly scopes: SectorScopes,
    private readonly directory: TenantDirectory,
    private readonly connections: TenantConnections,
    private readonly throttle: ThrottleService,
    private readonly box: SecretBox,
  ) {}

  async initiate(providerName: string, dto: OAuthInitiateDto, clientIp: string): Promise<OAuthInitiateResponse> {
    const name = knownProvider(providerName);
    const scope = await this.engine.scopeForSignIn(dto.sectorID);
    const provider = await this.providers.enabled(scope, name);
    if (!provider) throw DomainError.failedPrecondition(Reason.PROVIDER_NOT_ENABLED, `The provider ${name} is not enabled for this sector.`);
    await this.assertAllowedRedirect(scope, dto.redirectURI);
    const client = await this.lib();
    const pending: PendingOAuth = { provider: name, codeVerifier: client.randomPKCECodeVerifier(), returnTo: dto.redirectURI };
    if (isOidcProvider(name)) pending.nonce = client.randomNonce();
    // A new flow without a factor: counted per address like the other anonymous flows.
    await this.throttle.count({ clientIp }, 'flow');
    const tx = await this.engine.startTransaction(scope, null, [], '', clientIp, { oauth: pending });
    const authURL = await this.clients.authorizationUrl(provider, tx.id, pending);
    return { authURL, transactionID: tx.id };
  }

  /**
   * The provider's redirect. Refusals of the state itself (unknown, replayed,
   * another provider's, expired) are answered as errors: nothing trustworthy
   * says where to send the browser. Once the state is claimed, every outcome
   * goes back to the client's page: `transactionID` on success (also when a
   * second factor follows), `error=<reason>` otherwise.
   */
  async callback(providerName: string, query: OAuthCallbackQuery, clientIp: string): Promise<{ url: string; statusCode: number }> {
    const name = knownProvider(providerName);
    const state = query.state ?? '';
    const tenantId = tenantOfRoutedId(state);
    const tenant = tenantId ? await this.directory.tenantById(tenantId) : undefined;
    if (!tenant) throw stateInvalid('Unknown OAuth state.');
    const db = await this.connections.db(tenant);
    const tx = await this.transactions.find(db, state);
    if (!tx || tx.kind !== SIGN_IN) throw stateInvalid('Unknown OAuth state.');
    const oauth = tx.data?.oauth as PendingOAuth | undefined;
    if (tx.status !== 'PENDING' || !oauth) throw stateInvalid('This OAuth state was already used.');
    if (tx.expiresAt.getTime() <= Date.now()) throw DomainError.failedPrecondition(Reason.TRANSACTION_EXPIRED, 'The sign-in has expired; start again.');
    if (oauth.provider !== name) throw stateInvalid('This OAuth state belongs to another provider.');
    const claimed = (await this.transactions.claimOAuthState(db, state, name)) as PendingOAuth | undefined;
    if (!claimed) throw stateInvalid('This OAuth state was already used.');

    const back = (params: Record<string, string>) => ({ url: withParams(claimed.returnTo, params), statusCode: 302 });
    try {
      if (query.error) {
        throw new DomainError(ErrorCode.UNAUTHENTICATED, Reason.OAUTH_PROVIDER_ERROR, 'The provider refused the sign-in.', { metadata: { providerError: query.error.slice(0, 64) } });
      }
      const scope = await this.scopes.byId(tx.sectorId);
      const provider = await this.providers.enabled(scope, name);
      if (!provider) throw DomainError.failedPrecondition(Reason.PROVIDER_NOT_ENABLED, `The provider ${name} is not enabled for this sector.`);
      const params: Record<string, string> = {};
      for (const key of ['code', 'state', 'iss', 'scope', 'authuser', 'prompt', 'hd'] as const) if (query[key] !== undefined) params[key] = query[key]!;
      const proof = await this.clients.exchange(provider, params, state, claimed);
      const result = await this.engine.verify(this.strategy, { scope, tx: { ...tx, data: { ...tx.data, oauth: undefined } }, user: null, login: tx.id, clientIp }, proof);
      await this.transactions.setSocialResult(db, tx.id, this.box.seal(RESULT_SEAL, JSON.stringify(result)));
      return back({ transactionID: tx.id });
    } catch (err) {
      const reason = err instanceof DomainError ? err.reason : Reason.OAUTH_EXCHANGE_FAILED;
      if (!(err instanceof DomainError)) this.logger.warn(`${name} callback failed: ${(err as Error).message}`);
      else if (reason === Reason.OAUTH_EXCHANGE_FAILED) this.logger.warn(`${name} sign-in not verified: ${err.options.metadata?.detail ?? ''}`);
      return back({ transactionID: tx.id, error: reason });
    }
  }

  /** The result of a completed social sign-in, once (within two minutes of its completion; a pending one while it lasts). */
  async token(transactionID: string): Promise<AuthResultResponse> {
    const tenantId = tenantOfRoutedId(transactionID);
    const tenant = tenantId ? await this.directory.tenantById(tenantId) : undefined;
    const notFound = () => DomainError.failedPrecondition(Reason.TRANSACTION_NOT_FOUND, 'No social sign-in result is waiting for this transaction (used, expired or unknown).');
    if (!tenant) throw notFound();
    const db = await this.connections.db(tenant);
    const sealed = await this.transactions.takeSocialResult(db, transactionID, TOKEN_EXCHANGE_WINDOW_SECONDS);
    if (!sealed) throw notFound();
    return JSON.parse(this.box.open(RESULT_SEAL, sealed).toString('utf8')) as AuthResultResponse;
  }

  /** The client's page must be on one of the sector's allowed origins, exactly (scheme, host and port). */
  private async assertAllowedRedirect(scope: SectorScope, redirectURI: string): Promise<void> {
    const sector = await this.sectors.findById(scope.db, scope.route.sectorId);
    let origin: string | undefined;
    try {
      const u = new URL(redirectURI);
      if ((u.protocol === 'https:' || u.protocol === 'http:') && u.username === '' && u.password === '') origin = u.origin;
    } catch {
      origin = undefined;
    }
    const allowed = (sector?.allowedOrigins ?? []).map((o) => o.replace(/\/+$/, '').toLowerCase());
    if (!origin || !allowed.includes(origin.toLowerCase())) {
      throw DomainError.invalidArgument(
        "redirectURI: its origin is not one of the sector's allowedOrigins",
        [{ field: 'redirectURI', description: "its origin must be one of the sector's allowedOrigins" }],
        Reason.REDIRECT_URI_NOT_ALLOWED,
      );
    }
  }

  private lib() {
    return import('openid-client');
  }
}

function knownProvider(name: string): ProviderName {
  if (!isProviderName(name)) throw DomainError.failedPrecondition(Reason.PROVIDER_NOT_ENABLED, 'No such provider (google, github, apple, oidc).');
  return name;
}

function stateInvalid(message: string): DomainError {
  return DomainError.failedPrecondition(Reason.OAUTH_STATE_INVALID, message);
}

function withParams(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}

const FORM_MAX_BYTES = 64 * 1024;
const CALLBACK_FIELDS: Record<string, number> = { code: 4096, state: 128, iss: 2048, error: 256, error_description: 2048, error_uri: 2048, scope: 4096 };

/**
 * The fields of a callback sent as a form post (`application/x-www-form-urlencoded`,
 * at most 64 KiB): only the known ones, each within its length (the JSON parser
 * leaves such bodies alone). Anything else is INVALID_ARGUMENT.
 */
export async function readCallbackForm(req: IncomingMessage): Promise<OAuthCallbackQuery> {
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw DomainError.invalidArgument('The callback form must be application/x-www-form-urlencoded.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_MAX_BYTES) throw new DomainError(ErrorCode.INVALID_ARGUMENT, Reason.BODY_TOO_LARGE, 'The callback form is too large.');
    chunks.push(chunk);
  }
  const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  const out: Record<string, string> = {};
  for (const [key, max] of Object.entries(CALLBACK_FIELDS)) {
    const value = form.get(key);
    if (value === null) continue;
    if (value.length > max || /[\u0000]/.test(value)) throw DomainError.invalidField(key, `must be at most ${max} characters`);
    out[key] = value;
  }
  return out as OAuthCallbackQuery;
}
