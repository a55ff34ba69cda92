import { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { Request, Response } from 'express';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { IndexedMethod, RouteBlock, RouterLike } from './common/http/route-index';

/**
 * Express, lean per request and answering exactly as stock, through public APIs only
 * (`test/lean-express-adapter.spec.ts` fails the day one of its assumptions breaks):
 * - The Node server creates its requests and responses as Express's own objects
 *   (`http.createServer`'s documented `IncomingMessage`/`ServerResponse` options, with
 *   classes whose prototypes are the app's `request`/`response`: `bornOn`). Express
 *   otherwise swaps the prototype of every request and response it handles
 *   (`Object.setPrototypeOf`), which gives the objects Node's HTTP code works on new
 *   shapes mid-request and slows every access to them; on an object born with the
 *   prototype that swap changes nothing.
 * - Routes go into `RouteBlock`s (src/common/http/route-index.ts): each run of
 *   consecutive routes becomes one middleware, at the run's place, that hands a
 *   request only the routes its path can match (each in an `express.Router` of its
 *   own), instead of Express trying all seventy in turn. Middleware registered
 *   through the adapter (`use`, NestJS's middleware factory, static assets, the
 *   not-found and error handlers) ends the run, so the order Express sees is the
 *   order of registration.
 */
export class LeanExpressAdapter extends ExpressAdapter {
  private block: RouteBlock | undefined;

  constructor() {
    super(express());
  }

  override initHttpServer(options: NestApplicationOptions): void {
    // HTTPS and forced connection closing (neither used here) stay Nest's own.
    if (options.httpsOptions || options.forceCloseConnections) return super.initHttpServer(options);
    const app = this.getInstance<express.Express>();
    this.httpServer = createServer({ IncomingMessage: bornOn(IncomingMessage, app, 'request'), ServerResponse: bornOn(ServerResponse, app, 'response') }, app);
  }

  override use(...args: unknown[]): unknown {
    this.block = undefined;
    return super.use(...args);
  }

  override createMiddlewareFactory(method: Parameters<ExpressAdapter['createMiddlewareFactory']>[0]): ReturnType<ExpressAdapter['createMiddlewareFactory']> {
    const register = super.createMiddlewareFactory(method);
    return (path, callback) => {
      this.block = undefined;
      return register(path, callback);
    };
  }

  override get(...args: [unknown, ...unknown[]]): unknown {
    return this.route('get', args);
  }
  override post(...args: [unknown, ...unknown[]]): unknown {
    return this.route('post', args);
  }
  override put(...args: [unknown, ...unknown[]]): unknown {
    return this.route('put', args);
  }
  override patch(...args: [unknown, ...unknown[]]): unknown {
    return this.route('patch', args);
  }
  override delete(...args: [unknown, ...unknown[]]): unknown {
    return this.route('delete', args);
  }
  override head(...args: [unknown, ...unknown[]]): unknown {
    return this.route('head', args);
  }

  /**
   * A handler's plain JSON answer (200 or 201), written as Express's `res.json`
   * writes it here — this app sets no JSON replacer, spacing or escaping and no
   * ETag: the same status, `Content-Type: application/json; charset=utf-8`,
   * `Content-Length` and body — without its per-call settings lookups and header
   * re-parsing. HEAD, conditional requests (Express may answer 304), a
   * Content-Type already set, any other status and any other body (streams,
   * errors, class instances) take Nest's reply.
   */
  override reply(response: unknown, body: unknown, statusCode?: number): unknown {
    const res = response as Response;
    const status = statusCode ?? res.statusCode;
    if ((status !== 200 && status !== 201) || !isPlainJson(body) || res.getHeader('Content-Type') !== undefined || !isPlainRequest(res.req)) {
      return super.reply(response, body, statusCode);
    }
    const payload = JSON.stringify(body);
    res.statusCode = status;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(payload));
    return res.end(payload);
  }

  /** Adds a route to the current run, or starts a run when middleware was registered since (or none has started). */
  private route(method: IndexedMethod, args: [unknown, ...unknown[]]): express.Express {
    const app = this.getInstance<express.Express>();
    if (this.block === undefined) {
      const routing = { caseSensitive: app.enabled('case sensitive routing'), strict: app.enabled('strict routing') };
      this.block = new RouteBlock(() => express.Router(routing) as unknown as RouterLike);
      app.use(this.block.dispatch as unknown as express.RequestHandler);
    }
    this.block.add(method, args);
    return app;
  }
}

function isPlainJson(body: unknown): body is object {
  return typeof body === 'object' && body !== null && (Array.isArray(body) || Object.getPrototypeOf(body) === Object.prototype);
}

function isPlainRequest(req: Request): boolean {
  return req.method !== 'HEAD' && req.headers['if-none-match'] === undefined && req.headers['if-modified-since'] === undefined;
}

/**
 * A subclass of `base` (Node's IncomingMessage or ServerResponse, which `http.createServer`
 * documents as extensible) whose prototype becomes the app's `request` or `response` (the
 * per-application prototypes Express's guide "Overriding the Express API" documents),
 * inheriting from the one Express set there: every object the server creates is already
 * what Express would turn it into. A class, so V8 builds its objects from one cached shape.
 */
function bornOn<T extends object>(base: T, app: express.Express, key: 'request' | 'response'): T {
  const Born = class extends (base as unknown as new (...args: unknown[]) => object) {};
  // eslint-disable-next-line no-restricted-syntax -- the prototype of a class of our own (its instances are Express requests and responses), see docs/adr/0038-framework-internals.md
  Object.setPrototypeOf(Born.prototype, app[key]);
  (app as unknown as Record<typeof key, object>)[key] = Born.prototype;
  return Born as unknown as T;
}
