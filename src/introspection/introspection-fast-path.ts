import { Inject, Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { bearerCredential } from '../credentials/bearer.strategy';
import { CredentialService } from '../credentials/credential.service';
import { allows, Role } from '../access/role-matrix';
import { actorOf } from '../audit/audit-event';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { toWireError } from '../common/errors/error-mapper';
import { ensureRequestId, IncomingRequest } from '../common/http/request';
import { noteRequestScope, RequestContext, runRequestContext } from '../common/http/request-context';
import { logAccess } from '../common/logging/access-log.middleware';
import { serveAheadOfFramework } from '../common/http/request-listeners';
import { assertWellFormed, createValidationPipe } from '../common/validation/validation';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Lifecycle } from '../health/lifecycle';
import { Metrics } from '../metrics/metrics.service';
import { IntrospectDto, IntrospectionResponse } from './dto/introspection.dto';
import { IntrospectionService, SerializedAnswer } from './introspection.service';

const INTROSPECT_PATH = '/api/v1/introspect';
/** Bodies up to this size take the fast path; bigger ones (never a real introspection) take the framework's. */
const FAST_BODY_MAX = 16 * 1024;
const JSON_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;
const TOKEN_MAX = 8192;

/**
 * The token hot path: `POST /api/v1/introspect` answered ahead of the framework's
 * pipeline, on either HTTP adapter. Every backend calls it on every request, so it
 * skips what it does not need — routing over every route, the middleware chain,
 * passport, rxjs, class-transformer and class-validator for a one-field body —
 * and keeps everything the contract promises, through the same code the framework
 * path uses: the bearer credential (CredentialService, with its cached state), the
 * role check (the role matrix), the answer (IntrospectionService), errors mapped
 * by `toWireError` with their headers, X-Request-Id, the request's log context,
 * the security headers captured from the framework's own helmet configuration,
 * `Cache-Control: no-store`, the HTTP metrics and access-log line, and the drain
 * counter of graceful shutdown.
 *
 * Anything unusual goes to the framework's pipeline instead, untouched: another
 * method or path (also a query string, trailing slash or percent-encoding; the path's case does not matter, as to the routers), a browser request
 * (`Origin`: CORS is the browser policy's job), a compressed or non-UTF-8/non-JSON
 * body, one without Content-Length or over 16 KiB, no Authorization header, or a
 * draining instance. Within the fast path, the order of checks is the framework's:
 * body parsing, then authentication, then validation (a body that fails the quick
 * check is validated by the real validation pipe, so its error is the same).
 */
@Injectable()
export class IntrospectionFastPath {
  private readonly accessLog = new Logger('Access');
  private readonly validation = createValidationPipe();
  /** The service's security headers as a flat name, value, name, value… list. */
  private securityHeaders: string[] = [];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly credentials: CredentialService,
    private readonly introspection: IntrospectionService,
    private readonly lifecycle: Lifecycle,
    private readonly metrics: Metrics,
  ) {}

  /**
   * Puts the fast path in front of the server's request listeners (the adapter's).
   * `securityHeaders` are the headers every response of the service carries.
   */
  install(server: Server, securityHeaders: Array<[string, string]>): void {
    this.securityHeaders = securityHeaders.flat();
    serveAheadOfFramework(
      server,
      (req) => this.accepts(req),
      (req, res) => void this.serve(req, res),
    );
  }

  private accepts(req: IncomingMessage): boolean {
    if (req.method !== 'POST' || !isIntrospectPath(req.url) || this.lifecycle.draining) return false;
    const h = req.headers;
    if (h.origin !== undefined || h['content-encoding'] !== undefined || typeof h.authorization !== 'string') return false;
    const type = h['content-type'];
    if (type === undefined || !JSON_TYPE.test(type)) return false;
    const length = Number(h['content-length']);
    return length > 0 && length <= FAST_BODY_MAX;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = process.hrtime.bigint();
    const requestId = ensureRequestId(req as unknown as IncomingRequest);
    const context: RequestContext = { requestId, clientIp: '' };
    this.lifecycle.track(res, () => this.record(res.statusCode, started, context));
    runRequestContext(req, context, () => {
      this.answer(req)
        .then((body) => this.send(res, 200, requestId, body, []))
        .catch((err: unknown) => {
          const wire = toWireError(err, requestId, INTROSPECT_PATH);
          this.send(res, wire.status, requestId, wire.body, Object.entries(wire.headers));
        });
    });
  }

  private async answer(req: IncomingMessage): Promise<IntrospectionResponse | SerializedAnswer> {
    const body = parseStrictJson(await readBody(req));
    // On a repeated credential and token everything is cached: the synchronous
    // variants answer without a promise each, the same checks and errors.
    const credential = bearerCredential(req.headers.authorization);
    await this.credentials.ready();
    const principal = this.credentials.authenticateCached(credential) ?? (await this.credentials.authenticate(credential));
    noteRequestScope(principal.tenant.id, principal.sectorId, actorOf(principal));
    if (!allows(Role.AUTHENTICATED, principal)) throw DomainError.permissionDenied();
    const token = this.wellFormedToken(body) ?? (await this.validatedToken(body));
    return this.introspection.introspectCachedPayload(principal, token) ?? this.introspection.introspect(principal, token);
  }

  /** The token of a body that passes the quick check; undefined for any other body. */
  private wellFormedToken(body: unknown): string | undefined {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
    const token = (body as { token?: unknown }).token;
    if (typeof token !== 'string' || token.length === 0 || token.length > TOKEN_MAX) return undefined;
    // A body of the token alone in a JWT's characters holds nothing malformed; anything else is checked in full.
    if (!(JWT_CHARS.test(token) && Object.keys(body).length === 1)) assertWellFormed(body);
    return token;
  }

  /** Whatever the real validation pipe makes of a body that fails the quick check (its error, the framework's). */
  private async validatedToken(body: unknown): Promise<string> {
    const dto = (await this.validation.transform(body, { type: 'body', metatype: IntrospectDto })) as IntrospectDto;
    return dto.token;
  }

  private send(res: ServerResponse, status: number, requestId: string, body: unknown, extra: Array<[string, string]>): void {
    if (res.headersSent || res.destroyed) return;
    // A cached answer comes serialized already.
    const payload = body instanceof SerializedAnswer ? body.json : JSON.stringify(body);
    const bytes = body instanceof SerializedAnswer ? body.bytes : Buffer.byteLength(payload);
    // One writeHead with a flat list: no per-header bookkeeping of setHeader.
    const headers = this.securityHeaders.slice();
    headers.push('Cache-Control', 'no-store', 'X-Request-Id', requestId, 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(bytes));
    // An error's own headers (Retry-After, WWW-Authenticate; its X-Request-Id is the one above).
    for (const [name, value] of extra) if (name !== 'X-Request-Id') headers.push(name, value);
    res.writeHead(status, headers);
    res.end(payload);
  }

  /** The same series and access-log line the framework path's middleware records. */
  private record(status: number, started: bigint, context: RequestContext): void {
    this.metrics.recordHttp('POST', INTROSPECT_PATH, status, Number(process.hrtime.bigint() - started) / 1e9);
    if (this.config.logFormat === 'json') logAccess(this.accessLog, context, 'POST', INTROSPECT_PATH, status, started);
  }
}

/**
 * The introspection path in any case, as both routers match it (case-insensitively),
 * so `/API/V1/Introspect` is served here like `/api/v1/introspect`. A percent-encoded
 * or otherwise unusual spelling goes to the framework (Express does not decode paths
 * to route them, Fastify does: only the framework answers those alike).
 */
function isIntrospectPath(url: string | undefined): boolean {
  return url === INTROSPECT_PATH || (url?.length === INTROSPECT_PATH.length && url.toLowerCase() === INTROSPECT_PATH);
}

/** The characters of a JWT (base64url parts and dots). */
const JWT_CHARS = /^[A-Za-z0-9_.-]+$/;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** JSON as the framework's body parser reads it: strict (an object or an array at the top), else MALFORMED_JSON. */
function parseStrictJson(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  // eslint-disable-next-line no-control-regex -- JSON's whitespace: space, tab, line feed, carriage return
  const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
  if (first === '{' || first === '[') {
    try {
      return JSON.parse(text);
    } catch {
      /* below */
    }
  }
  throw DomainError.invalidArgument('The request body is not valid JSON.', undefined, Reason.MALFORMED_JSON);
}

