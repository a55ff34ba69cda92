import type { IncomingMessage, ServerResponse } from 'node:http';
import request from 'supertest';
import { Dispatch, IndexedMethod, requestKey, RouteBlock, routeKey, RouterLike } from './route-index';

/** Express's routing engine (the `router` package Express 5 is built on), typed structurally. */
type Router = RouterLike & { use(handler: unknown): void };
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the package ships no types
const newRouter = require('router') as () => Router;

type RoutedReq = IncomingMessage & { params?: unknown; route?: { path?: unknown } };

describe('routeKey and requestKey', () => {
  it('keys a route by its first three literal segments, lowercased, and leaves a route with an earlier parameter or wildcard unkeyed', () => {
    expect(routeKey('/api/v1/users/:sub/factors')).toBe('api/v1/users');
    expect(routeKey('/API/V1/Sectors')).toBe('api/v1/sectors');
    expect(routeKey('/healthz')).toBe('healthz');
    expect(routeKey('/.well-known/jwks.json')).toBe('.well-known/jwks.json');
    expect(routeKey('/')).toBe('');
    expect(routeKey('/console/*path')).toBeUndefined();
    expect(routeKey('/{*path}')).toBeUndefined();
    expect(routeKey('/api/:version/users')).toBeUndefined();
    expect(routeKey('/api/v1{/x}')).toBeUndefined();
    expect(routeKey(/regexp/)).toBeUndefined();
  });

  it('keys a request by its first three non-empty segments, lowercased, ignoring the query', () => {
    expect(requestKey('/api/v1/users/abc/factors?x=1')).toBe('api/v1/users');
    expect(requestKey('/API/v1/Sectors/')).toBe('api/v1/sectors');
    expect(requestKey('//api//v1/sectors')).toBe('api/v1/sectors');
    expect(requestKey('/healthz?probe=/a/b/c')).toBe('healthz');
    expect(requestKey('/')).toBe('');
    expect(requestKey('/?x')).toBe('');
  });
});

/**
 * The same routes, once on Express's router (the `router` package Express 5
 * routes with) and once through a RouteBlock, in the same order, between the same
 * middleware: every request must get the same answer from both (the route that
 * answered, its parameters, `req.route`, or the 404 after them).
 */
describe('RouteBlock', () => {
  const routes: Array<[IndexedMethod, string]> = [
    ['get', '/healthz'],
    ['get', '/'],
    ['get', '/api/v1/users/:sub'],
    ['get', '/api/v1/users/me'],
    ['patch', '/api/v1/users/:sub'],
    ['get', '/api/v1/users/:sub/factors'],
    ['get', '/api/:version/users/:sub'],
    ['post', '/api/v1/introspect'],
    ['get', '/api/v1/sectors'],
    ['delete', '/api/v1/sectors/:id'],
    ['get', '/.well-known/jwks.json'],
    ['get', '/console/*path'],
    ['head', '/probe'],
    ['put', '/api/v1/settings'],
  ];
  const handler = (name: string) => (req: RoutedReq, res: ServerResponse) => send(res, 200, { name, params: req.params, route: req.route?.path });
  const notFound = (req: RoutedReq, res: ServerResponse) => send(res, 404, { name: 'not found', method: req.method });

  function send(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  /** A request listener over `root`, answering what reaches its end (a routing error: its status) as Express's final handler would. */
  function listener(root: Router) {
    return (req: IncomingMessage, res: ServerResponse) =>
      (root as unknown as Dispatch)(req, res, (err?: unknown) => send(res, (err as { status?: number } | undefined)?.status ?? 500, { name: 'error' }));
  }

  function stockApp() {
    const root = newRouter();
    for (const [method, path] of routes) root[method](path, handler(`${method} ${path}`));
    root.use(notFound);
    return listener(root);
  }

  function indexedApp() {
    const root = newRouter();
    const block = new RouteBlock(newRouter);
    root.use(block.dispatch);
    for (const [method, path] of routes) block.add(method, [path, handler(`${method} ${path}`)]);
    root.use(notFound);
    return listener(root);
  }

  const paths = [
    '/healthz',
    '/HEALTHZ/',
    '/healthz/more',
    '/',
    '/?q=1',
    '/api/v1/users/abc',
    '/api/v1/users/me',
    '/api/v1/users/abc/',
    '/api/v1/users/abc/factors',
    '/api/v2/users/abc',
    '/API/V1/USERS/abc',
    '/api/v1/users',
    '/api/v1/introspect',
    '/api/v1/sectors',
    '/api/v1/sectors?pageSize=5',
    '/api/v1/%73ectors',
    '//api/v1/sectors',
    '/api/v1/sectors/s1',
    '/.well-known/jwks.json',
    '/console/users/42',
    '/console',
    '/probe',
    '/api/v1/settings',
    '/nowhere/at/all/here',
    '/api/v1/users/%zz',
    '/api/v1/users/a%20b?x=%zz',
    '/console/%zz/x',
  ];
  const methods = ['get', 'head', 'post', 'patch', 'put', 'delete', 'options'] as const;

  it.each(methods)('answers every %s request as the stock router does', async (method) => {
    const stock = stockApp();
    const indexed = indexedApp();
    for (const path of paths) {
      const [a, b] = await Promise.all([request(stock)[method](path), request(indexed)[method](path)]);
      expect({ path, status: b.status, body: b.body as unknown }).toEqual({ path, status: a.status, body: a.body as unknown });
    }
  });
});
