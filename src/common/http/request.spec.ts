import { ensureRequestId, IncomingRequest, noteRouteTemplate, redactUrl, routeTemplate, routingPath } from './request';

describe('redactUrl', () => {
  it('keeps paths and harmless paging parameters, hides every other query value', () => {
    expect(redactUrl('/api/v1/users/abc')).toBe('/api/v1/users/abc');
    expect(redactUrl('/api/v1/users/abc?transactionID=secret-proof')).toBe('/api/v1/users/abc?transactionID=***');
    expect(redactUrl('/api/v1/sectors/s/users?searchTerm=alice&page=2&pageSize=50&filterEmail=a%40b.c')).toBe(
      '/api/v1/sectors/s/users?searchTerm=***&page=2&pageSize=50&filterEmail=***',
    );
    expect(redactUrl('/invite?token=abc&flag')).toBe('/invite?token=***&flag');
    expect(redactUrl('/x?%E0%A4%A=1')).toBe('/x?%E0%A4%A=***');
  });
});

describe('a request seen by middleware and by handlers (Fastify wraps the Node request)', () => {
  const node = (): IncomingRequest => ({ headers: {}, params: {}, query: {} });

  it('gives the wrapper and its Node request one request id', () => {
    const raw = node();
    const id = ensureRequestId(raw);
    expect(ensureRequestId({ ...node(), raw })).toBe(id);
    const wrapped = { ...node(), raw: node() };
    expect(ensureRequestId(wrapped)).toBe(ensureRequestId(wrapped.raw!));
  });

  it('labels a request by the route template noted for its Node request, else by what the framework keeps, else unmatched', () => {
    const raw = node();
    noteRouteTemplate(raw, '/api/v1/users/:sub');
    expect(routeTemplate(raw)).toBe('/api/v1/users/:sub');
    expect(routeTemplate({ ...node(), raw })).toBe('/api/v1/users/:sub');
    expect(routeTemplate({ ...node(), route: { path: '/healthz' } } as IncomingRequest)).toBe('/healthz');
    expect(routeTemplate(node())).toBe('unmatched');
  });
});

describe('routingPath (the path as the case-insensitive routers compare it)', () => {
  it('drops the query, lower-cases and percent-decodes, so any spelling of an API path has the API prefix', () => {
    expect(routingPath('/api/v1/users/abc?x=1')).toBe('/api/v1/users/abc');
    expect(routingPath('/API/V1/USERS/ABC')).toBe('/api/v1/users/abc');
    expect(routingPath('/api/v1/Introspect')).toBe('/api/v1/introspect');
    expect(routingPath('/%61pi/v1/%49ntrospect')).toBe('/api/v1/introspect');
    expect(routingPath('/api/v1/%E0%A4%A')).toBe('/api/v1/%e0%a4%a');
    expect(routingPath(undefined)).toBe('');
  });
});
