/**
 * An index over a run of routes, for a router that tries its routes one by one
 * (Express's). Express matches a request against every route registered before the
 * one that answers it, a regular expression each; with the service's seventy
 * routes that scan is a measurable part of a cheap read. A `RouteBlock` keeps the
 * same routes in small routers of the same kind, one per leading path (the first
 * three literal segments: `api/v1/users`), each also holding, in their places, the
 * routes whose leading segments are not literal; a request goes to the one router
 * its own path's leading segments name. Whatever that router does — match, 404 by
 * calling `next`, HEAD on GET routes, parameters, `req.route` — is what the whole
 * run would have done, because every route left out of it cannot match the path.
 *
 * Structural types only: the adapter (src/main.ts) passes the router factory.
 */

/** A request as the index reads it. */
interface RoutedRequest {
  method?: string;
  url?: string;
}
type Next = (err?: unknown) => void;
export type Dispatch = (req: RoutedRequest, res: unknown, next: Next) => void;
/** The methods indexed: the ones a router answers only on a matching path and method (OPTIONS has an automatic answer). */
export type IndexedMethod = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head';
/** A router: a dispatch function that also registers routes. */
export type RouterLike = Dispatch & Record<IndexedMethod, (path: unknown, ...handlers: unknown[]) => unknown>;

/** Leading segments that key a route and a request. */
const DEPTH = 3;
/** A segment the router's path syntax reads literally (no parameter, wildcard, group or escape). */
const LITERAL = /^[A-Za-z0-9._~-]+$/;

/**
 * A route path's key: its first three segments, lowercased, when they are all
 * literal (a shorter path: all of its segments, when literal); undefined when a
 * parameter or wildcard comes earlier, so any path may match it. Lowercasing and
 * ignoring empty segments only ever put more routes under a key, never fewer, so
 * case-sensitive or strict routing stay exact.
 */
export function routeKey(path: unknown): string | undefined {
  if (typeof path !== 'string') return undefined;
  const head = path.split('/').filter((s) => s !== '').slice(0, DEPTH);
  return head.every((s) => LITERAL.test(s)) ? head.join('/').toLowerCase() : undefined;
}

/** A request path's key (the URL up to `?`, which must start with `/`): its first three non-empty segments, lowercased. */
export function requestKey(url: string): string {
  let end = url.indexOf('?');
  if (end === -1) end = url.length;
  let key = '';
  let segments = 0;
  let start = 0;
  // One pass, no intermediate arrays: this runs on every request.
  for (let i = 0; i <= end && segments < DEPTH; i++) {
    if (i < end && url.charCodeAt(i) !== 0x2f) continue;
    if (i > start) {
      key += segments === 0 ? url.slice(start, i) : `/${url.slice(start, i)}`;
      segments++;
    }
    start = i + 1;
  }
  return key.toLowerCase();
}

/** A run of consecutive routes, registered through `add` and answered through `dispatch`. */
export class RouteBlock {
  /** Every route of the run, in order: for a URL that is not a path (`http://host/…`). */
  private readonly all: RouterLike;
  /** The routes any path may match, in order: for a path no keyed route shares. */
  private readonly unkeyed: RouterLike;
  private readonly unkeyedRoutes: Array<[IndexedMethod, unknown[]]> = [];
  private readonly byKey = new Map<string, RouterLike>();

  constructor(private readonly newRouter: () => RouterLike) {
    this.all = newRouter();
    this.unkeyed = newRouter();
  }

  add(method: IndexedMethod, args: [unknown, ...unknown[]]): void {
    this.all[method](...args);
    const key = routeKey(args[0]);
    if (key === undefined) {
      this.unkeyedRoutes.push([method, args]);
      this.unkeyed[method](...args);
      for (const router of this.byKey.values()) router[method](...args);
      return;
    }
    let router = this.byKey.get(key);
    if (router === undefined) {
      router = this.newRouter();
      for (const [m, a] of this.unkeyedRoutes) router[m](...(a as [unknown, ...unknown[]]));
      this.byKey.set(key, router);
    }
    router[method](...args);
  }

  /**
   * The middleware that stands for the run. An OPTIONS request passes by: no
   * indexed route answers it, and a router would answer it on its own (`Allow`)
   * where the whole run passes it on — unless its path does not decode, where a
   * matching route's parameters fail to decode and the router passes that error
   * on (a 400), as the whole run does.
   */
  readonly dispatch: Dispatch = (req, res, next) => {
    const url = req.url ?? '';
    if (req.method === 'OPTIONS' && decodes(url)) return next();
    const router = url.charCodeAt(0) === 0x2f ? (this.byKey.get(requestKey(url)) ?? (this.unkeyedRoutes.length > 0 ? this.unkeyed : undefined)) : this.all;
    // No route can match: on at once (an empty router would pass it on only after a turn of the event loop).
    if (router === undefined) return next();
    router(req, res, next);
  };
}

/** Whether the URL's path (up to `?`) percent-decodes. */
function decodes(url: string): boolean {
  const end = url.indexOf('?');
  try {
    decodeURIComponent(end === -1 ? url : url.slice(0, end));
    return true;
  } catch {
    return false;
  }
}
