import express from 'express';
import request from 'supertest';
import { IndexedMethod, requestKey, RouteBlock, routeKey, RouterLike } from './route-index';

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
 * The same routes, once on a stock Express app and once through a RouteBlock, in
 * the same order, between the same middleware: every request must get the same
 * answer from both (the route that answered, its parameters, `req.route`, or the
 * 404 after them).
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
  const handler = (name: string) => (req: express.Request, res: express.Response) => {
    res.json({ name, params: req.params, route: req.route?.path });
  };

  function stockApp(): express.Express {
    const app = express();
    for (const [method, path] of routes) app[method](path, handler(`${method} ${path}`));
    app.use((req, res) => res.status(404).json({ name: 'not found', method: req.method }));
    return app;
  }

  function indexedApp(): express.Express {
    const app = express();
    const block = new RouteBlock(() => express.Router() as unknown as RouterLike);
    app.use(block.dispatch as unknown as express.RequestHandler);
    for (const [method, path] of routes) block.add(method, [path, handler(`${method} ${path}`)]);
    app.use((req, res) => res.status(404).json({ name: 'not found', method: req.method }));
    return app;
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
