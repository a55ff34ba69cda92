import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TargetUserRef } from '../settings/request-targets';
import type { Principal } from '../access/principal';
import { AuditService } from '../audit/audit.service';
import { SecretBox } from '../common/crypto/secret-box';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode, Reason } from '../common/errors/error-codes';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { AuthResultResponse } from '../auth/engine/auth.dto';
import { AuthTransactionEntity } from '../auth/engine/auth-transaction.entity';
import { AuthTransactionRepository } from '../auth/engine/auth-transaction.repository';
import { SignInEngine, SIGN_IN } from '../auth/engine/sign-in-engine';
import { SocialIdentity, SocialStrategy } from './social.strategy';
import { SectorRepository } from '../sector/sector.repository';
import { SectorScope, SectorScopes } from '../settings/sector-scope';
import { newRoutedId, tenantOfRoutedId } from '../tenancy/routed-id';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { ThrottleService } from '../throttle/throttle.service';
import { StepUpService } from '../user/step-up.service';
import { identityView } from './identities.service';
import { LinkedIdentityRepository } from './linked-identity.repository';
import { LinkIdentityDto, OAuthCallbackQuery, OAuthInitiateDto, OAuthInitiateResponse, OAuthLinkResultResponse } from './dto/oauth.dto';
import { isProviderName, ProviderName } from './oauth-provider.entity';
import { isOidcProvider, PendingOAuth, ProviderClients, ResolvedProvider } from './provider-clients';
import { ProviderConfigService } from './provider-config.service';

/** Seal purpose of the result a social callback leaves for the exchange. */
const RESULT_SEAL = 'oauth-sign-in-result';
/** How long after its completion a social flow's result can be collected. */
const TOKEN_EXCHANGE_WINDOW_SECONDS = 120;
/** The kind of the transactions of a link flow (started from the account page; never a sign-in). */
const OAUTH_LINK = 'oauth-link';
const FLOW_KINDS = [SIGN_IN, OAUTH_LINK] as const;

/** The issuers of the providers with a fixed one; the generic `oidc` provider's is its configured issuer URL. */
const FIXED_ISSUERS: Record<Exclude<ProviderName, 'oidc'>, string> = {
  google: 'https://accounts.google.com',
  apple: 'https://appleid.apple.com',
  github: 'https://github.com',
};

/** The issuer of a provider as its sector configures it now: with the subject, the key of a linked identity. */
function providerIssuer(p: Pick<ResolvedProvider, 'name' | 'issuerUrl'>): string {
  return p.name === 'oidc' ? p.issuerUrl : FIXED_ISSUERS[p.name];
}

/** What a social flow keeps between initiate and callback, and until its result is collected (`data.oauth`). */
interface SocialFlow extends PendingOAuth {
  /** The OAuth state sent to the provider: the transaction id (operation 17's contract); removed when claimed. */
  state: string;
  /** SHA-256 of the verifier initiate answered (the verifier itself is never stored). */
  verifierHash: string;
  purpose: 'sign-in' | 'link';
  /** A link flow: the user the identity is linked to. */
  linkUserId?: string;
}

/** Hash under which a browser-held secret (verifier, result code) is kept: SHA-256, base64url. */
function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/**
 * Social login (operation 17 and what follows it) and linking a provider from
 * the account page. Initiate starts a transaction whose internal data keeps the
 * PKCE verifier, the nonce, the OAuth `state` (the transaction id, as operation
 * 17 publishes it) and the hash of a `verifier` answered once to the browser that
 * started the flow.
 * The callback claims that state once, has the provider's answer verified,
 * records the SOCIAL factor on the engine (or, for a link flow, links the
 * identity to the signed-in user who started it) and sends the browser back to
 * the client's page with a fresh single-use `code` (and the transactionID, which
 * proves nothing: a social flow's transaction is never a self-access proof and
 * never collects the result); the exchange hands out the
 * result once, to whoever shows that code AND the verifier — the browser that
 * both started and finished the flow (docs/security.md, Browser binding of
 * social sign-in).
 */
@Injectable()
export class SocialLoginService {
  private readonly logger = new Logger('SocialLogin');
  private readonly identities = new LinkedIdentityRepository();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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
    private readonly stepUp: StepUpService,
    private readonly audit: AuditService,
  ) {}

  async initiate(providerName: string, dto: OAuthInitiateDto, clientIp: string): Promise<OAuthInitiateResponse> {
    const name = knownProvider(providerName);
    const scope = await this.engine.scopeForSignIn(dto.sectorID);
    const provider = await this.enabledProvider(scope, name);
    await this.assertAllowedRedirect(scope, dto.redirectURI);
    // The transaction id is the OAuth state (the published contract of initiate says so).
    const id = newRoutedId(scope.route.tenant.id);
    const { flow, verifier } = await this.newFlow(scope, name, dto.redirectURI, id, 'sign-in');
    // A new flow without a factor: counted per address like the other anonymous flows.
    await this.throttle.count({ clientIp }, 'flow');
    // The provider first: one that cannot be used (SOCIAL_PROVIDER_UNAVAILABLE) leaves no transaction behind.
    const authURL = await this.clients.authorizationUrl(provider, flow.state, flow);
    const tx = await this.engine.startTransaction(scope, null, [], '', clientIp, { oauth: flow, socialFlow: 'sign-in' }, id);
    return { authURL, transactionID: tx.id, verifier };
  }

  /**
   * Starts linking a provider to the caller's own account (from the account
   * page): the user themselves, signed in with an access token, recently
   * (step-up: linking adds a way to sign in). The flow never signs anyone in.
   */
  async startLink(caller: Principal, target: TargetUserRef, providerName: string, dto: LinkIdentityDto, clientIp: string): Promise<OAuthInitiateResponse> {
    if (caller.kind !== 'user' || caller.userId !== target.id) {
      throw DomainError.permissionDenied('Only the user themselves links a provider to their account, signed in with an access token.');
    }
    const name = knownProvider(providerName);
    const scope = target.scope;
    const provider = await this.enabledProvider(scope, name);
    await this.assertAllowedRedirect(scope, dto.redirectURI);
    await this.stepUp.require(caller, target, { currentPassword: dto.currentPassword }, clientIp, 'link a sign-in provider');
    const id = newRoutedId(scope.route.tenant.id);
    const { flow, verifier } = await this.newFlow(scope, name, dto.redirectURI, id, 'link', target.id);
    const authURL = await this.clients.authorizationUrl(provider, flow.state, flow);
    const tx = new AuthTransactionEntity();
    Object.assign(tx, {
      id,
      kind: OAUTH_LINK,
      sectorId: scope.route.sectorId,
      userId: target.id,
      status: 'PENDING',
      factors: [],
      pendingChallenge: '',
      attemptsLeft: 0,
      data: { oauth: flow, socialFlow: 'link' },
      clientIp: clientIp || null,
      expiresAt: new Date(Date.now() + this.config.transactionTtlSeconds * 1000),
      completedAt: null,
    });
    await this.transactions.insert(scope.db, tx);
    return { authURL, transactionID: tx.id, verifier };
  }

  /**
   * The provider's redirect. Refusals of the state itself (unknown, replayed,
   * another provider's, expired) are answered as errors: nothing trustworthy
   * says where to send the browser. Once the state is claimed, every outcome
   * goes back to the client's page with the `transactionID` and: `code` (a fresh
   * single-use code, neither the state nor the transaction id) on success, also
   * when a second factor follows; `error=<reason>` otherwise.
   */
  async callback(providerName: string, query: OAuthCallbackQuery, clientIp: string): Promise<{ url: string; statusCode: number }> {
    const name = knownProvider(providerName);
    const state = query.state ?? '';
    const tenantId = tenantOfRoutedId(state);
    const tenant = tenantId ? await this.directory.tenantById(tenantId) : undefined;
    if (!tenant) throw stateInvalid('Unknown OAuth state.');
    const db = await this.connections.db(tenant);
    const tx = await this.transactions.find(db, state);
    if (!tx || !(FLOW_KINDS as readonly string[]).includes(tx.kind)) throw stateInvalid('Unknown OAuth state.');
    const oauth = tx.data?.oauth as SocialFlow | undefined;
    if (tx.status !== 'PENDING' || !oauth) throw stateInvalid('This OAuth state was already used.');
    if (tx.expiresAt.getTime() <= Date.now()) throw DomainError.failedPrecondition(Reason.TRANSACTION_EXPIRED, 'The sign-in has expired; start again.');
    if (oauth.provider !== name) throw stateInvalid('This OAuth state belongs to another provider.');
    const claimed = (await this.transactions.claimOAuthState(db, state, name, FLOW_KINDS)) as SocialFlow | undefined;
    if (!claimed) throw stateInvalid('This OAuth state was already used.');

    const back = (params: Record<string, string>) => ({ url: withParams(claimed.returnTo, params), statusCode: 302 });
    try {
      if (query.error) {
        throw new DomainError(ErrorCode.UNAUTHENTICATED, Reason.OAUTH_PROVIDER_ERROR, 'The provider refused the sign-in.', { metadata: { providerError: query.error.slice(0, 64) } });
      }
      const scope = await this.scopes.byId(tx.sectorId);
      const provider = await this.enabledProvider(scope, name);
      const params: Record<string, string> = {};
      for (const key of ['code', 'state', 'iss', 'scope', 'authuser', 'prompt', 'hd'] as const) if (query[key] !== undefined) params[key] = query[key]!;
      const proof = await this.clients.exchange(provider, params, state, claimed);
      const identity: SocialIdentity = { ...proof, issuer: providerIssuer(provider) };
      const code = newRoutedId(tenant.id);
      if (claimed.purpose === 'link') {
        const result = await this.link(scope, claimed.linkUserId ?? '', identity);
        await this.transactions.setSocialResult(db, tx.id, this.box.seal(RESULT_SEAL, JSON.stringify(result)), secretHash(code), true);
      } else {
        const result = await this.engine.verify(this.strategy, { scope, tx: { ...tx, data: { ...tx.data, oauth: undefined } }, user: null, login: tx.id, clientIp }, identity);
        await this.transactions.setSocialResult(db, tx.id, this.box.seal(RESULT_SEAL, JSON.stringify(result)), secretHash(code));
      }
      return back({ transactionID: tx.id, code });
    } catch (err) {
      const reason = err instanceof DomainError ? err.reason : Reason.OAUTH_EXCHANGE_FAILED;
      if (!(err instanceof DomainError)) this.logger.warn(`${name} callback failed: ${(err as Error).message}`);
      else if (reason === Reason.OAUTH_EXCHANGE_FAILED) this.logger.warn(`${name} sign-in not verified: ${err.options.metadata?.detail ?? ''}`);
      return back({ transactionID: tx.id, error: reason });
    }
  }

  /**
   * The result of a social flow, once, to the browser that holds both the code
   * its return carried and the verifier initiate answered: a sign-in result
   * (within two minutes of its completion; a pending one, where a second factor
   * follows, while it lasts), or a link flow's `{linked, identity}`. One
   * conditional UPDATE matches both; any mismatch, reuse or expiry is the same
   * refusal, and a wrong verifier leaves the code usable.
   */
  async token(code: string, verifier: string): Promise<AuthResultResponse | OAuthLinkResultResponse> {
    const invalid = () =>
      DomainError.failedPrecondition(Reason.OAUTH_RESULT_BINDING_INVALID, 'No social sign-in result is waiting for this code and verifier (wrong, used, expired or unknown).');
    const tenantId = tenantOfRoutedId(code);
    const tenant = tenantId ? await this.directory.tenantById(tenantId) : undefined;
    if (!tenant) throw invalid();
    const db = await this.connections.db(tenant);
    const taken = await this.transactions.takeSocialResult(db, secretHash(code), secretHash(verifier), FLOW_KINDS, TOKEN_EXCHANGE_WINDOW_SECONDS);
    if (!taken) throw invalid();
    return JSON.parse(this.box.open(RESULT_SEAL, taken.sealed).toString('utf8')) as AuthResultResponse | OAuthLinkResultResponse;
  }

  /**
   * Links a verified provider identity to `userId` (a link flow): the user's row
   * is locked, the link inserted unless the identity is linked already — to this
   * user, a success; to another user of the sector, IDENTITY_ALREADY_LINKED —
   * and the event recorded with it, in one transaction.
   */
  private async link(scope: SectorScope, userId: string, identity: SocialIdentity): Promise<OAuthLinkResultResponse> {
    const sectorId = scope.route.sectorId;
    const row = await scope.db.transaction(async (tx) => {
      const [user] = await tx.rows<{ id: string }>('SELECT id FROM users WHERE id = $1 AND sector_id = $2 FOR UPDATE', [userId, sectorId]);
      if (!user) throw DomainError.notFound(Reason.USER_NOT_FOUND, 'No such user.');
      const linked = await this.identities.link(tx, sectorId, userId, { provider: identity.provider, issuer: identity.issuer, subject: identity.subject, email: identity.email.trim() });
      if (linked.userId !== userId) {
        throw DomainError.alreadyExists(Reason.IDENTITY_ALREADY_LINKED, 'This provider identity is already linked to another user of the sector.');
      }
      await this.audit.record(tx, {
        type: 'identity.linked',
        sectorId,
        actor: { kind: 'user', id: userId },
        target: { kind: 'user', id: userId },
        details: { provider: identity.provider, identityID: linked.id },
      });
      return linked;
    });
    return { linked: true, identity: identityView(row) };
  }

  private async newFlow(scope: SectorScope, name: ProviderName, returnTo: string, state: string, purpose: SocialFlow['purpose'], linkUserId?: string) {
    const client = await this.lib();
    const verifier = randomBytes(32).toString('base64url');
    const flow: SocialFlow = {
      provider: name,
      codeVerifier: client.randomPKCECodeVerifier(),
      returnTo,
      state,
      verifierHash: secretHash(verifier),
      purpose,
    };
    if (linkUserId) flow.linkUserId = linkUserId;
    if (isOidcProvider(name)) flow.nonce = client.randomNonce();
    return { flow, verifier };
  }

  private async enabledProvider(scope: SectorScope, name: ProviderName): Promise<ResolvedProvider> {
    const provider = await this.providers.enabled(scope, name);
    if (!provider) throw DomainError.failedPrecondition(Reason.PROVIDER_NOT_ENABLED, `The provider ${name} is not enabled for this sector.`);
    return provider;
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
    if (value.length > max || value.includes('\u0000')) throw DomainError.invalidField(key, `must be at most ${max} characters`);
    out[key] = value;
  }
  return out as OAuthCallbackQuery;
}
