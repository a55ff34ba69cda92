import { Injectable, NestMiddleware } from '@nestjs/common';
import { headerValue, IncomingRequest, routingPath } from '../common/http/request';
import { DirectoryChanges } from '../tenancy/directory-changes';
import { DirectoryRepository } from '../tenancy/directory.repository';

/** The response side a middleware needs; structural, so it works on any Nest HTTP adapter. */
interface PolicyResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(): unknown;
}

/** How long the origin list is trusted without a change notice (a safety net; changes are announced at once). */
const ORIGINS_TTL_MS = 60_000;
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Request-Id';
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, WWW-Authenticate';
const PREFLIGHT_MAX_AGE = '600';

/**
 * Routes a browser calls on behalf of a sector's users: the API, but not
 * introspection (a backend-to-backend call). `path` is the routing path
 * (lower-cased, decoded), so `/API/V1/Introspect` is left out like the route it reaches.
 */
function isBrowserRoute(path: string): boolean {
  return path.startsWith('/api/v1/') && !path.startsWith('/api/v1/introspect');
}

/**
 * The origins CORS answers for: the union of every sector's `allowedOrigins`,
 * read from the routing directory (no tenant database is opened), kept in memory
 * and dropped when any instance announces a sector change.
 */
@Injectable()
export class AllowedOrigins {
  private cached: { origins: Set<string>; at: number } | undefined;
  private loading: Promise<Set<string>> | undefined;

  constructor(
    private readonly directory: DirectoryRepository,
    changes: DirectoryChanges,
  ) {
    changes.subscribe((what) => {
      if (what === 'sectors' || what === '*') this.invalidate();
    });
  }

  async allows(origin: string): Promise<boolean> {
    return (await this.current()).has(origin);
  }

  invalidate(): void {
    this.cached = undefined;
    this.loading = undefined;
  }

  private current(): Promise<Set<string>> {
    if (this.cached && Date.now() - this.cached.at < ORIGINS_TTL_MS) return Promise.resolve(this.cached.origins);
    if (!this.loading) {
      const loading = this.directory.allowedOrigins().then((list) => {
        const origins = new Set(list);
        if (this.loading === loading) this.cached = { origins, at: Date.now() };
        return origins;
      });
      loading.catch(() => undefined).finally(() => {
        if (this.loading === loading) this.loading = undefined;
      });
      this.loading = loading;
    }
    return this.loading;
  }
}

/**
 * What a browser may do with the API's responses. CORS for the origins sectors
 * allow, on the routes a browser calls (preflight answered here, credentials
 * never allowed — the API takes bearer tokens, not cookies), and nothing for
 * any other origin. `Cache-Control: no-store` on every API response, since they
 * carry tokens, codes, secrets or personal data.
 */
@Injectable()
export class BrowserPolicyMiddleware implements NestMiddleware {
  constructor(private readonly origins: AllowedOrigins) {}

  use(req: IncomingRequest, res: PolicyResponse, next: (err?: unknown) => void): void {
    void this.apply(req, res).then((answered) => {
      if (!answered) next();
    }, next);
  }

  /** Sets the headers; true when it answered the request itself (a preflight). */
  private async apply(req: IncomingRequest, res: PolicyResponse): Promise<boolean> {
    // The path as the router matches it (any case, Fastify also decoded), not as sent.
    const path = routingPath(req.originalUrl ?? req.url);
    if (path.startsWith('/api/v1/')) res.setHeader('Cache-Control', 'no-store');
    const origin = headerValue(req, 'origin');
    if (!origin || !isBrowserRoute(path)) return false;
    res.setHeader('Vary', 'Origin');
    if (!(await this.origins.allows(origin))) return false;
    res.setHeader('Access-Control-Allow-Origin', origin);
    if (req.method === 'OPTIONS' && headerValue(req, 'access-control-request-method')) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE);
      res.statusCode = 204;
      res.end();
      return true;
    }
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    return false;
  }
}
