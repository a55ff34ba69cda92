import 'reflect-metadata';
import { Controller, Get, Head, Injectable, INestApplication, MiddlewareConsumer, Module, NestMiddleware, Param, Post, Req, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import express from 'express';
import { IncomingMessage, ServerResponse } from 'node:http';
import request from 'supertest';
import { LeanExpressAdapter } from './lean-express-adapter';

/**
 * The assumptions LeanExpressAdapter (src/lean-express-adapter.ts) stands on, each checked
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
  thing(@Param('id') id: string, @Req() req: object, @Res({ passthrough: true }) res: object): object {
    seen.reqPrototype = Object.getPrototypeOf(req) as object;
    seen.resPrototype = Object.getPrototypeOf(res) as object;
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
async function boot(adapter: ExpressAdapter): Promise<INestApplication> {
  adapter.getInstance<express.Express>().set('etag', false);
  const app = await NestFactory.create(ProbeModule, adapter, { logger: false, bodyParser: false });
  // A route registered before NestJS's middleware (as the OpenAPI document's are): the
  // controllers' routes, registered after the middleware, must not join its run.
  adapter.get('/api/v1/early', (_req: express.Request, res: express.Response) => res.json({ early: true }));
  await app.init();
  return app;
}

describe('LeanExpressAdapter', () => {
  let lean: INestApplication;
  let stock: INestApplication;
  let leanExpress: express.Express;

  beforeAll(async () => {
    const adapter = new LeanExpressAdapter();
    leanExpress = adapter.getInstance<express.Express>();
    lean = await boot(adapter);
    stock = await boot(new ExpressAdapter(express()));
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
