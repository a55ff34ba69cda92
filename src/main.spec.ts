import 'reflect-metadata';
import { Controller, Get, Head, Injectable, INestApplication, MiddlewareConsumer, Module, NestMiddleware, Param, Post, Req } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IncomingMessage, ServerResponse } from 'node:http';
import request from 'supertest';
import { LeanExpressAdapter } from './main';

/** What the spec reads of an Express application (structural: no Express types outside main.ts). */
interface ExpressApp {
  request: object;
  response: object;
  set(setting: string, value: unknown): void;
}

/**
 * The assumptions LeanExpressAdapter (src/main.ts) stands on, each checked
 * against Express and NestJS as installed, so an upgrade that breaks one fails here first:
 * requests and responses born as Express's objects stay what Express made them; middleware
 * registered between routes keeps its place; a plain JSON answer is byte for byte what
 * stock Express writes.
 */

const seen: { reqPrototype?: object; resPrototype?: object } = {};

@Injectable()
class MarkMiddleware implements NestMiddleware {
  use(_req: unknown, res: { setHeader(name: string, value: string): void }, next: () => void): void {
    res.setHeader('X-Middleware', 'ran');
    next();
  }
}

@Controller()
class ProbeController {
  @Get('api/v1/things/:id')
  thing(@Param('id') id: string, @Req() req: { res?: object }): object {
    seen.reqPrototype = Object.getPrototypeOf(req) as object;
    // Express links each request to its response.
    seen.resPrototype = Object.getPrototypeOf(req.res) as object;
    return { id, list: [1, 'two', null], nested: { ü: 'é' } };
  }

  @Post('api/v1/things')
  create(): object {
    return { created: true };
  }

  @Head('api/v1/heads')
  head(): void {
    return undefined;
  }

  @Get(':anything/last')
  last(@Param('anything') anything: string): object {
    return { anything };
  }
}

@Module({ controllers: [ProbeController], providers: [MarkMiddleware] })
class ProbeModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(MarkMiddleware).forRoutes('*path');
  }
}

/** Both as the service runs them (src/main.ts): no ETag, no body parser of NestJS's. */
async function boot(adapter?: LeanExpressAdapter): Promise<INestApplication> {
  const options = { logger: false as const, bodyParser: false };
  // Without an adapter: NestJS's own Express adapter, stock.
  const app = adapter ? await NestFactory.create(ProbeModule, adapter, options) : await NestFactory.create(ProbeModule, options);
  const http = app.getHttpAdapter();
  (http.getInstance() as ExpressApp).set('etag', false);
  // A route registered before NestJS's middleware (as the OpenAPI document's are): the
  // controllers' routes, registered after the middleware, must not join its run.
  http.get('/api/v1/early', (_req: unknown, res: { json(body: unknown): void }) => res.json({ early: true }));
  await app.init();
  return app;
}

describe('LeanExpressAdapter', () => {
  let lean: INestApplication;
  let stock: INestApplication;
  let leanExpress: ExpressApp;

  beforeAll(async () => {
    const adapter = new LeanExpressAdapter();
    leanExpress = adapter.getInstance<ExpressApp>();
    lean = await boot(adapter);
    stock = await boot();
  });

  afterAll(async () => {
    await lean.close();
    await stock.close();
  });

  it('hands handlers requests and responses whose prototypes are Express’s own (so Express’s prototype swap is a no-op)', async () => {
    await request(lean.getHttpServer()).get('/api/v1/things/a').expect(200);
    expect(seen.reqPrototype).toBe(leanExpress.request);
    expect(seen.resPrototype).toBe(leanExpress.response);
    expect(leanExpress.request).toBeInstanceOf(IncomingMessage);
    expect(leanExpress.response).toBeInstanceOf(ServerResponse);
    // Still Express's own API above Node's.
    expect(Object.getOwnPropertyDescriptor(Object.getPrototypeOf(leanExpress.request), 'app')?.value).toBe(leanExpress);
  });

  it('keeps middleware registered through NestJS in front of the routes registered after it', async () => {
    const res = await request(lean.getHttpServer()).get('/api/v1/things/a').expect(200);
    expect(res.headers['x-middleware']).toBe('ran');
  });

  it.each([
    ['GET', '/api/v1/things/a%20b'],
    ['GET', '/api/v1/early'],
    ['GET', '/API/V1/Things/x/'],
    ['POST', '/api/v1/things'],
    ['GET', '/whatever/last'],
    ['GET', '/api/v1/nothing'],
    ['HEAD', '/api/v1/heads'],
    ['HEAD', '/api/v1/things/a'],
    ['OPTIONS', '/api/v1/things/a'],
    ['GET', '/api/v1/things/%zz'],
  ])('answers %s %s exactly as stock Express does', async (method, path) => {
    const send = (app: INestApplication) => request(app.getHttpServer())[method.toLowerCase() as 'get'](path);
    const [a, b] = await Promise.all([send(lean), send(stock)]);
    expect(a.status).toBe(b.status);
    expect(a.text).toBe(b.text);
    for (const header of ['content-type', 'content-length', 'allow', 'x-middleware', 'etag']) expect([header, a.headers[header]]).toEqual([header, b.headers[header]]);
  });
});
