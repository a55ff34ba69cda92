import { Inject, Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { allows, Role } from '../access/role-matrix';
import { serveAheadOfFramework } from '../common/http/request-listeners';
import { ensureRequestId, IncomingRequest } from '../common/http/request';
import { logAccess } from '../common/logging/access-log.middleware';
import { noteRequestScope, RequestContext, runRequestContext } from '../common/http/request-context';
import { actorOf } from '../audit/audit-event';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { bearerCredential } from '../credentials/bearer.strategy';
import { CredentialService } from '../credentials/credential.service';
import { Lifecycle } from '../health/lifecycle';
import { Metrics } from '../metrics/metrics.service';
import { runOidcCall, OidcCall } from './oidc-call';
import { OidcIssuer, OidcProviders } from './oidc-providers';

const PREFIX = '/oidc/';
/** The route label of every provider request in metrics and the access log (one series, not one per issuer). */
const ROUTE_LABEL = '/oidc/{tenant}/{sector}/*';
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62})$/;

/** An OAuth error answer (RFC 6749 §5.2 body). */
class OAuthRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
    readonly headers: Array<[string, string]> = [],
  ) {
    super(description);
  }
}

/**
 * Serves every sector's OpenID Provider at `{PUBLIC_URL}/oidc/{tenant slug}/{sector
 * slug}/…`, ahead of the framework's pipeline (the library reads its own bodies and
 * answers in OAuth's formats, not the service's error body). Per request it finds
 * the issuer, checks the initial access token of a dynamic registration (an admin
 * of the sector or of its tenant's default sector, or an API token of the sector:
 * RFC 7591's "initial access token" is one of the service's own credentials), and
 * hands the request to the library with the path under the issuer and PUBLIC_URL's
 * host and protocol, so every URL it builds is under the issuer. It keeps what the
 * rest of the service does for every request: the security headers (but for the
 * content security policy: the library's pages post forms and carry their own),
 * X-Request-Id, the drain counter, the HTTP metrics and the access log.
 */
@Injectable()
export class OidcHttp {
  private readonly accessLog = new Logger('Access');
  private readonly publicUrl: URL;
  private securityHeaders: Array<[string, string]> = [];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly providers: OidcProviders,
    private readonly credentials: CredentialService,
    private readonly lifecycle: Lifecycle,
    private readonly metrics: Metrics,
  ) {
    this.publicUrl = new URL(config.publicUrl);
  }

  install(server: Server, securityHeaders: Array<[string, string]>): void {
    this.securityHeaders = securityHeaders.filter(([name]) => name.toLowerCase() !== 'content-security-policy');
    serveAheadOfFramework(
      server,
      (req) => req.url?.startsWith(PREFIX) === true,
      (req, res) => this.serve(req, res),
    );
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const started = process.hrtime.bigint();
    const requestId = ensureRequestId(req as unknown as IncomingRequest);
    const context: RequestContext = { requestId, clientIp: req.socket.remoteAddress ?? '' };
    this.lifecycle.track(res, () => this.record(req.method ?? 'GET', res.statusCode, started, context));
    for (const [name, value] of this.securityHeaders) res.setHeader(name, value);
    res.setHeader('X-Request-Id', requestId);
    runRequestContext(req, context, () => void this.dispatch(req, res));
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
      try {
        const { issuer, rest } = await this.locate(req.url ?? '');
        const call = await this.admit(req, issuer, rest);
        // The library sees the path under the issuer; `originalUrl` (the mount, then that path) tells it where it is mounted.
        (req as IncomingMessage & { originalUrl?: string }).originalUrl = `${new URL(issuer.issuer).pathname}${rest}`;
        req.url = rest;
        req.headers['x-forwarded-host'] = this.publicUrl.host;
        req.headers['x-forwarded-proto'] = this.publicUrl.protocol.slice(0, -1);
        delete req.headers['x-forwarded-port'];
        runOidcCall(call, () => issuer.handle(req, res));
      } catch (err) {
        this.refuse(res, err);
      }
  }

  /** The issuer a path names, and the path under it (`/` at least, with the query). */
  private async locate(url: string): Promise<{ issuer: OidcIssuer; rest: string }> {
    const [tenantSlug = '', sectorSlug = '', ...tail] = url.slice(PREFIX.length).split('/');
    const sectorPart = sectorSlug.split('?')[0];
    const issuer = SLUG.test(tenantSlug) && SLUG.test(sectorPart) ? await this.providers.issuer(tenantSlug, sectorPart) : undefined;
    if (!issuer) throw new OAuthRefusal(404, 'invalid_request', 'No such OpenID Provider.');
    const query = sectorSlug.slice(sectorPart.length);
    return { issuer, rest: tail.length > 0 ? `/${tail.join('/')}` : `/${query}` };
  }

  /**
   * What the mount decides before the library: a dynamic registration needs an
   * initial access token, which is one of the service's credentials with admin
   * rights over the issuer's sector; the client it registers is first-party.
   */
  private async admit(req: IncomingMessage, issuer: OidcIssuer, rest: string): Promise<OidcCall> {
    const path = rest.split('?')[0];
    if (req.method !== 'POST' || path !== '/reg') return {};
    const challenge: Array<[string, string]> = [['WWW-Authenticate', 'Bearer error="invalid_token"']];
    let principal;
    try {
      const credential = bearerCredential(req.headers.authorization);
      await this.credentials.ready();
      principal = await this.credentials.authenticate(credential);
    } catch {
      throw new OAuthRefusal(401, 'invalid_token', 'Registration needs an initial access token: an access token of an admin of this sector or an API token of it.', challenge);
    }
    // The registrant is the request's actor (audit events, the access log), as on every authenticated route.
    noteRequestScope(principal.tenant.id, principal.sectorId, actorOf(principal));
    if (!allows(Role.SECTOR_ADMIN, principal, { sector: issuer.route })) {
      throw new OAuthRefusal(403, 'insufficient_scope', 'The initial access token has no admin rights over this sector.', [['WWW-Authenticate', 'Bearer error="insufficient_scope"']]);
    }
    const createdBy = principal.kind === 'user' ? `user:${principal.userId}` : principal.kind === 'apiToken' ? `apiToken:${principal.tokenId}` : null;
    return { registrant: { firstParty: true, createdBy } };
  }

  private refuse(res: ServerResponse, err: unknown): void {
    if (res.headersSent || res.destroyed) return;
    const refusal = err instanceof OAuthRefusal ? err : undefined;
    if (!refusal) this.accessLog.error(`OpenID Provider request failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    const status = refusal?.status ?? 500;
    const body = JSON.stringify(refusal ? { error: refusal.error, error_description: refusal.message } : { error: 'server_error', error_description: 'An internal error occurred.' });
    for (const [name, value] of refusal?.headers ?? []) res.setHeader(name, value);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }

  private record(method: string, status: number, started: bigint, context: RequestContext): void {
    this.metrics.recordHttp(method, ROUTE_LABEL, status, Number(process.hrtime.bigint() - started) / 1e9);
    if (this.config.logFormat === 'json') logAccess(this.accessLog, context, method, ROUTE_LABEL, status, started);
  }
}
