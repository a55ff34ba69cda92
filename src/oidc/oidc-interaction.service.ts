import { Injectable } from '@nestjs/common';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Principal } from '../access/principal';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { SessionRepository } from '../session/session.repository';
import { TenantConnections } from '../tenancy/tenant-connections';
import { CompleteOidcInteractionResponse, OidcInteractionResponse } from './dto/oidc-interaction.dto';
import { interactionId, parseInteractionId } from './interaction-id';
import { SERVICE_SESSION_RESULT_KEY } from './oidc-adapter';
import { OidcIssuer, OidcProviders } from './oidc-providers';
import { OidcStorageRepository } from './oidc-storage.repository';

type Interaction = InstanceType<OidcIssuer['provider']['Interaction']>;

const notFound = () => DomainError.notFound(Reason.OIDC_INTERACTION_NOT_FOUND, 'No such sign-in request: it is unknown, expired or already completed.');

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The words of a space-separated OAuth parameter. */
function words(value: unknown): string[] {
  return typeof value === 'string' ? value.split(' ').filter(Boolean) : [];
}

/** The claim names a request's `claims` parameter asks for (OpenID Connect Core §5.5). */
function requestedClaims(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  try {
    const parsed = JSON.parse(value) as Record<string, Record<string, unknown> | undefined>;
    return [...new Set([...Object.keys(parsed.id_token ?? {}), ...Object.keys(parsed.userinfo ?? {})])];
  } catch {
    return [];
  }
}

/**
 * An OpenID Provider sign-in request (the library's interaction) as the service's
 * sign-in page sees it: what it is about, and finishing it with the access token of
 * the user who signed in through the sign-in API. Finishing checks, in order: the
 * request exists and is open; the user belongs to the issuer's sector; this browser
 * started it (the library's interaction cookie names it); the sign-in is fresh
 * enough for `prompt=login` or `max_age`; the app may have what it asks for
 * (first-party apps get it without a consent screen; a third-party app needs the
 * user's consent, given once per app and set of scopes and remembered across
 * browsers, or again when the app asks with `prompt=consent`). Then the library
 * records the login (the session's RFC 8176 methods and `auth_time`) and the
 * grant, and answers where the browser goes next. The service session whose token
 * finished it is kept with the result, so the provider session the library then
 * saves knows its origin (ending that session ends the provider session).
 */
@Injectable()
export class OidcInteractionService {
  constructor(
    private readonly providers: OidcProviders,
    private readonly storage: OidcStorageRepository,
    private readonly connections: TenantConnections,
    private readonly sessions: SessionRepository,
  ) {}

  async details(id: string): Promise<OidcInteractionResponse> {
    const { issuer, interaction } = await this.open(id);
    const clientId = String(interaction.params.client_id);
    const [client, stored] = await Promise.all([issuer.provider.Client.find(clientId), this.storedClient(issuer, clientId)]);
    if (!client) throw notFound();
    const metadata = client.metadata();
    const text = (key: string): string | undefined => (typeof metadata[key] === 'string' ? (metadata[key] as string) : undefined);
    const maxAge = interaction.params.max_age === undefined ? undefined : Number(interaction.params.max_age);
    return {
      interactionID: id,
      sectorID: issuer.route.sectorId,
      client: {
        clientID: clientId,
        clientName: text('client_name') ?? clientId,
        logoURI: text('logo_uri'),
        clientURI: text('client_uri'),
        policyURI: text('policy_uri'),
        tosURI: text('tos_uri'),
        firstParty: stored?.firstParty ?? false,
      },
      scopes: words(interaction.params.scope),
      prompt: interaction.prompt.name,
      reasons: interaction.prompt.reasons,
      ...(typeof interaction.params.login_hint === 'string' ? { loginHint: interaction.params.login_hint } : {}),
      ...(maxAge !== undefined && Number.isFinite(maxAge) ? { maxAge } : {}),
      expiresAt: new Date(interaction.exp * 1000).toISOString(),
    };
  }

  async complete(id: string, caller: Principal, req: IncomingMessage, consent = false): Promise<CompleteOidcInteractionResponse> {
    const { issuer, interaction, uid } = await this.open(id);
    const { route } = issuer;
    if (caller.kind !== 'user' || caller.tenant.id !== route.tenant.id || caller.sectorId !== route.sectorId) {
      throw DomainError.permissionDenied('Only a user of the app’s sector can finish this sign-in request; sign in to that sector.', Reason.OIDC_WRONG_SECTOR);
    }
    const res = await this.ownBrowser(issuer, uid, req);
    this.assertFresh(interaction, caller.authTime);
    const clientId = String(interaction.params.client_id);
    const stored = await this.storedClient(issuer, clientId);
    if (!stored) throw notFound();
    const grantId = await this.grant(issuer, interaction, caller.userId, clientId, stored.firstParty || consent);
    const session = caller.sessionId ? await this.sessions.find(await this.connections.db(route.tenant), caller.sessionId) : null;
    const redirectTo = await issuer.provider.interactionResult(
      req,
      res,
      {
        login: { accountId: caller.userId, remember: true, ...(caller.authTime !== undefined ? { ts: caller.authTime } : {}), amr: session?.amr ?? [] },
        consent: { grantId },
        ...(caller.sessionId ? { [SERVICE_SESSION_RESULT_KEY]: caller.sessionId } : {}),
      },
      { mergeWithLastSubmission: false },
    );
    return { redirectTo };
  }

  /**
   * The user declines an app's request (at sign-in or consent): the app's
   * redirect URI receives `error=access_denied`. Only the browser that started
   * the request can decline it; no sign-in is needed.
   */
  async deny(id: string, req: IncomingMessage): Promise<CompleteOidcInteractionResponse> {
    const { issuer, uid } = await this.open(id);
    const res = await this.ownBrowser(issuer, uid, req);
    const redirectTo = await issuer.provider.interactionResult(
      req,
      res,
      { error: 'access_denied', error_description: 'The user declined the request.' },
      { mergeWithLastSubmission: false },
    );
    return { redirectTo };
  }

  /** The library finds the request by the interaction cookie of the browser that started it: another browser is refused. */
  private async ownBrowser(issuer: OidcIssuer, uid: string, req: IncomingMessage): Promise<ServerResponse> {
    const res = new ServerResponse(req);
    const own = await issuer.provider.interactionDetails(req, res).catch(() => undefined);
    if (own?.uid !== uid) {
      throw DomainError.permissionDenied('This sign-in request was started in another browser; start again from the app.', Reason.OIDC_INTERACTION_OTHER_BROWSER);
    }
    return res;
  }

  /** The open request a public id names: NOT_FOUND when the id, its sector or the request is unknown, expired or completed. */
  private async open(id: string): Promise<{ issuer: OidcIssuer; interaction: Interaction; uid: string }> {
    const parsed = parseInteractionId(id);
    if (!parsed) throw notFound();
    const issuer = await this.providers.issuerOfSector(parsed.sectorId);
    if (!issuer) throw notFound();
    const interaction = await issuer.provider.Interaction.find(parsed.uid);
    if (!interaction || interaction.result !== undefined || interactionId(issuer.route.sectorId, interaction.uid) !== id) throw notFound();
    return { issuer, interaction, uid: parsed.uid };
  }

  /** `prompt=login` asks for a sign-in after the request began; `max_age` for one at most that old. */
  private assertFresh(interaction: Interaction, authTime: number | undefined): void {
    const loginPrompt = words(interaction.params.prompt).includes('login');
    const maxAge = interaction.params.max_age === undefined ? undefined : Number(interaction.params.max_age);
    if (!loginPrompt && maxAge === undefined) return;
    const fresh = authTime !== undefined && (!loginPrompt || authTime >= interaction.iat) && (maxAge === undefined || nowSeconds() - authTime <= maxAge);
    if (!fresh) throw DomainError.failedPrecondition(Reason.OIDC_LOGIN_REQUIRED, 'The app asks for a fresh sign-in: sign in again.');
  }

  /**
   * The grant that answers what the app asks for: the scopes and claims of the
   * request, added to the user's earlier grant for the app when there is one (this
   * browser's, else the newest the user gave the app anywhere). `allowed`: a
   * first-party app, or the user consented just now. Otherwise the app gets only
   * what the user granted before, and never on `prompt=consent`.
   */
  private async grant(issuer: OidcIssuer, interaction: Interaction, accountId: string, clientId: string, allowed: boolean): Promise<string> {
    const { Grant } = issuer.provider;
    const mine = (g: InstanceType<typeof Grant> | undefined) => (g && g.accountId === accountId && g.clientId === clientId ? g : undefined);
    let earlier = mine(interaction.grantId ? await Grant.find(interaction.grantId) : undefined);
    if (!earlier) {
      const newest = await this.storage.newestGrantId(await this.connections.db(issuer.route.tenant), issuer.route.sectorId, accountId, clientId);
      earlier = mine(newest ? await Grant.find(newest) : undefined);
    }
    const grant = earlier ?? new Grant({ accountId, clientId });
    const scopes = words(interaction.params.scope);
    const claims = requestedClaims(interaction.params.claims);
    if (!allowed) {
      const granted = new Set(words(grant.getOIDCScope()));
      const grantedClaims = new Set(grant.getOIDCClaims());
      const asked = words(interaction.params.prompt).includes('consent');
      if (asked || !scopes.every((s) => granted.has(s)) || !claims.every((c) => grantedClaims.has(c))) {
        throw DomainError.failedPrecondition(Reason.OIDC_CONSENT_REQUIRED, 'This app needs your consent for what it asks.');
      }
    }
    grant.addOIDCScope(scopes);
    if (claims.length > 0) grant.addOIDCClaims(claims);
    return grant.save();
  }

  private async storedClient(issuer: OidcIssuer, clientId: string) {
    return this.storage.findClient(await this.connections.db(issuer.route.tenant), issuer.route.sectorId, clientId);
  }
}
