import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * The parts of an incoming HTTP request this service reads. Structural, so no
 * HTTP-adapter type leaks outside main.ts and the app runs on any Nest adapter.
 */
export interface IncomingRequest {
  headers: Record<string, string | string[] | undefined>;
  params: Record<string, string | undefined>;
  query: Record<string, unknown>;
  body?: unknown;
  ip?: string;
  method?: string;
  url?: string;
  originalUrl?: string;
  requestId?: string;
  /** Fastify: the Node request under the framework's own (the one middleware sees). */
  raw?: IncomingRequest;
}

export interface OutgoingResponse {
  setHeader(name: string, value: string): unknown;
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Keeps a well-formed incoming X-Request-Id for tracing, otherwise makes one. */
export function ensureRequestId(req: IncomingRequest): string {
  // Middleware sees Fastify's underlying Node request, handlers and filters its wrapper: one id for both.
  const node = req.raw ?? req;
  if (node.requestId) return node.requestId;
  const incoming = req.headers['x-request-id'];
  const value = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  node.requestId = value;
  return value;
}

/** The Node request under a handler's request, e.g. to read a body the JSON parser left alone (Fastify wraps it, Express's is it). */
export function nodeRequest(req: IncomingRequest): IncomingMessage {
  return (req.raw ?? req) as unknown as IncomingMessage;
}

export function headerValue(req: IncomingRequest, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A request URL's path as the routers compare it, for every decision made by
 * path outside the router (no-store, the CORS scope, the drain's probes): the part
 * before `?`, percent-decoded when it decodes, lower-cased. Both adapters route
 * case-insensitively (Fastify decodes the path first, Express does not), so a
 * path the router matches to an API route has the API prefix here, whatever its
 * case or encoding; decoding and lower-casing only ever widen a prefix match.
 */
export function routingPath(url: string | undefined): string {
  const q = (url ?? '').indexOf('?');
  let path = q < 0 ? (url ?? '') : (url ?? '').slice(0, q);
  if (path.includes('%')) {
    try {
      path = decodeURIComponent(path);
    } catch {
      // a path that does not decode is compared as sent (the router answers it 400)
    }
  }
  return path.toLowerCase();
}

/** Query parameters whose values are safe to log (no credential, no personal data). */
const LOGGABLE_QUERY = new Set(['page', 'pageSize', 'sortBy', 'sortDesc', 'filterVerified', 'ping', 'includeStats', 'isDefault']);

/**
 * A request URL as logs may show it: the path, and the query with every value
 * replaced by `***` except a few harmless ones (paging, sorting, flags). Query
 * values can be credentials (`transactionID` proves self-access, link tokens)
 * or personal data (search terms, emails).
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      let name = key;
      try {
        name = decodeURIComponent(key);
      } catch {
        // a malformed key is logged as sent, its value never
      }
      return eq < 0 ? key : `${key}=${LOGGABLE_QUERY.has(name) ? pair.slice(eq + 1) : '***'}`;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

/** Route templates of Fastify's Node requests, noted by the adapter (middleware only sees the Node request, which does not know its route). */
const notedRoutes = new WeakMap<object, string>();

/** Records the template of the route a (Node) request matched; main.ts calls it on Fastify. */
export function noteRouteTemplate(req: object, template: string): void {
  notedRoutes.set(req, template);
}

/** The matched route's template (`/api/v1/users/:sub`), never the concrete path: Express keeps it on `req.route`, Fastify's is noted for the Node request (or on `req.routeOptions`); `unmatched` for none. */
export function routeTemplate(req: IncomingRequest): string {
  const noted = notedRoutes.get(req.raw ?? req);
  if (noted !== undefined) return noted;
  const r = req as IncomingRequest & { route?: { path?: unknown }; routeOptions?: { url?: unknown }; baseUrl?: unknown };
  const path = typeof r.route?.path === 'string' ? r.route.path : typeof r.routeOptions?.url === 'string' ? r.routeOptions.url : undefined;
  return path === undefined ? 'unmatched' : `${typeof r.baseUrl === 'string' ? r.baseUrl : ''}${path}`;
}
