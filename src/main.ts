import 'reflect-metadata';
import { BadRequestException, INestApplication, Logger, LogLevel, NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import express, { NextFunction, Request, Response } from 'express';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { AppModule } from './app.module';
import { BootstrapService } from './bootstrap/bootstrap.service';
import { Lifecycle } from './health/lifecycle';
import { toDomainError, toWireError } from './common/errors/error-mapper';
import { ensureRequestId, IncomingRequest, noteRouteTemplate } from './common/http/request';
import { resumeRequestContext } from './common/http/request-context';
import { createValidationPipe } from './common/validation/validation';
import { AppLogger } from './common/logging/app-logger';
import { AppConfig, loadConfigOrExit } from './config/app-config';
import { loadExtensions } from './extensions/extension-loader';
import { DatabaseServer, openDatabaseServer } from './database/embedded-database';
import { IntrospectionFastPath } from './introspection/introspection-fast-path';
import { OidcHttp } from './oidc/oidc-http';
import { headersSetBy, setsHeaders } from './common/http/static-headers';
import { setupOpenApi } from './openapi';
import { IndexedMethod, RouteBlock, RouterLike } from './common/http/route-index';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/**
 * The usual browser protections (helmet): no MIME sniffing, no referrer beyond
 * the origin, no framing, HSTS, and a content security policy that lets the docs
 * UI (its scripts are files, its styles partly inline) load from this origin only
 * (images also over https: the logos of apps).
 * No `upgrade-insecure-requests`: the service also runs on plain HTTP locally.
 */
const SECURITY_HEADERS: Parameters<typeof helmet>[0] = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      // Apps' logos (https URLs their admins registered) on the sign-in, consent and account pages.
      imgSrc: ["'self'", 'data:', 'https:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  crossOriginResourcePolicy: { policy: 'cross-origin' },
};
/**
 * The headers that configuration produces, recorded once: the configuration is
 * static, so every response gets them from one loop (and the introspection fast
 * path, which bypasses the middleware, sends the same ones).
 */
const SECURITY_HEADER_LIST = headersSetBy(helmet(SECURITY_HEADERS));

export function logLevels(level: AppConfig['logLevel']): LogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

/** JSON bodies (`application/json`, and SCIM's `application/scim+json`): up to 1 MiB, objects and arrays only (body-parser's strict mode), on both adapters. */
const JSON_BODY = { limit: '1mb', strict: true, type: ['application/json', 'application/scim+json'] };
/** Fastify only: path parameters as long as Express takes (its default of 100 would turn long ids into 404s). */
const MAX_PARAM_LENGTH = 16_384;

/**
 * Builds the HTTP application on the adapter HTTP_ADAPTER names: JSON bodies up
 * to 1 MiB (strict: objects and arrays), helmet's headers, the global validation
 * pipe, the OpenAPI document. The only place that knows the HTTP adapters: the
 * rest of the service sees structural request/response types (src/common/http)
 * and Nest middleware, which runs on both (Fastify through middie).
 */
export async function createApp(config: AppConfig, databaseUrl: string): Promise<INestApplication> {
  const options: NestApplicationOptions = {
    // A failed start throws to the caller (the entry point logs it and exits 1) instead of Nest ending the
    // process itself: a process that hosts several apps (the test suite, a CLI command) outlives one failed start.
    abortOnError: false,
    bodyParser: false,
    logger: config.logFormat === 'json' ? new AppLogger(logLevels(config.logLevel), true) : logLevels(config.logLevel),
  };
  // Extension modules are loaded first: one that fails to load stops the start, naming it (docs/extending.md).
  const module = AppModule.forRoot(config, databaseUrl, await loadExtensions(config.extensionModules));
  const app = config.httpAdapter === 'fastify' ? await createFastifyApp(module, options, config) : await createExpressApp(module, options, config);
  if (config.extensionModules.length > 0) new Logger('Extensions').log(`Extension modules loaded: ${config.extensionModules.join(', ')}`);
  if (config.trustProxy === true) {
    new Logger('Main').warn('TRUST_PROXY=true believes every X-Forwarded-For hop, so clients can pick the address the throttle counts; set the number of proxies or their addresses instead');
  }
  app.useGlobalPipes(createValidationPipe());
  setupOpenApi(app, config.publicUrl);
  // The token hot path, in front of either adapter (src/introspection/introspection-fast-path.ts).
  app.get(IntrospectionFastPath).install(app.getHttpServer(), SECURITY_HEADER_LIST);
  // Every sector's OpenID Provider, also ahead of the framework: it reads its own bodies and answers OAuth's errors (src/oidc/oidc-http.ts).
  app.get(OidcHttp).install(app.getHttpServer(), SECURITY_HEADER_LIST);
  return app;
}

type RootModule = ReturnType<typeof AppModule.forRoot>;

async function createExpressApp(module: RootModule, options: NestApplicationOptions, config: AppConfig): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(module, new LeanExpressAdapter(), options);
  // The first middleware, so every answer (body-parser refusals, preflights, drain refusals) carries the headers.
  app.use(setsHeaders(SECURITY_HEADER_LIST));
  // Body-parser failures (malformed JSON, over 1 MiB) become domain errors here, so
  // the global filter maps them with their own reasons like any other error.
  const json = express.json(JSON_BODY);
  app.use((req: Request, res: Response, next: NextFunction) => json(req, res, (err?: unknown) => next(err ? toDomainError(err) : undefined)));
  app.set('trust proxy', config.trustProxy);
  app.set('x-powered-by', false);
  // API answers are no-store; Fastify sends no ETag either, so both adapters answer alike.
  app.set('etag', false);
  return app;
}

/**
 * Express, lean per request and answering exactly as stock, through public APIs only
 * (`src/main.spec.ts` fails the day one of its assumptions breaks):
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
    const type = res.getHeader('Content-Type');
    // A JSON body of a `+json` media type (SCIM's `application/scim+json`), whatever the status: Nest's
    // reply would turn the type of an error answer into plain application/json.
    if (typeof type === 'string' && STRUCTURED_JSON.test(type) && isPlainJson(body) && isPlainRequest(res.req)) return writeJson(res, status, body, type);
    if ((status !== 200 && status !== 201) || !isPlainJson(body) || type !== undefined || !isPlainRequest(res.req)) {
      return super.reply(response, body, statusCode);
    }
    return writeJson(res, status, body, 'application/json; charset=utf-8');
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

/** A media type with the `+json` structured syntax suffix (RFC 6839). */
const STRUCTURED_JSON = /^application\/[\w.-]+\+json\s*(;|$)/i;

function writeJson(res: Response, status: number, body: object, type: string): Response {
  const payload = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', Buffer.byteLength(payload));
  return res.end(payload);
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

/**
 * Fastify, made to answer exactly as Express does: the same body parser
 * (body-parser's JSON, so the same limit, strictness, charsets, inflated
 * encodings and errors), Express's routing leniency (case-insensitive, optional
 * trailing slash, long parameters), the same `trust proxy` semantics (both use
 * proxy-addr), and framework errors in the service's error body.
 */
async function createFastifyApp(module: RootModule, options: NestApplicationOptions, config: AppConfig): Promise<INestApplication> {
  const adapter = new FastifyAdapter({
    trustProxy: config.trustProxy,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Node's defaults, which Express keeps (Fastify's own: no request timeout, 72 s keep-alive).
    requestTimeout: 300_000,
    keepAliveTimeout: 5_000,
    // A path Fastify cannot decode (`%zz`): a 400 in the error body, as Express's URIError becomes.
    frameworkErrors: (err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const wire = toWireError(new BadRequestException(err.message), ensureRequestId(request.raw as unknown as IncomingRequest));
      void reply.code(wire.status).headers(wire.headers).send(wire.body);
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, options);
  // The first middleware (middie runs Nest's middleware in an onRequest hook, before any body is read).
  app.use(setsHeaders(SECURITY_HEADER_LIST));
  const fastify = app.getHttpAdapter().getInstance();
  // Express 5 names a trailing wildcard (`assets/*path`); Fastify's router takes a bare `*` there. The
  // handlers read the path from the URL, and the route template (logs, metrics) stays Nest's.
  fastify.addHook('onRoute', (route) => {
    route.url = route.url.replace(/\*\w+$/, '*');
  });
  // Middleware sees the Node request only: note the matched route for the access log and metrics.
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.url !== undefined && !request.is404) noteRouteTemplate(request.raw, request.routeOptions.url);
    done();
  });
  // Every body goes through one parser, body-parser's JSON as on Express, which itself decides by
  // the Content-Type (a body of any other type is left unread, as Express leaves it). Fastify would
  // refuse a Content-Type it cannot parse (415) before any parser runs, where Express reads on:
  // the header is set aside until the parser, which puts it back.
  const json = express.json(JSON_BODY);
  const contentTypes = new WeakMap<IncomingMessage, string | string[]>();
  const restoreContentType = (raw: IncomingMessage) => {
    const value = contentTypes.get(raw);
    if (value === undefined) return;
    raw.headers['content-type'] = value as string;
    contentTypes.delete(raw);
  };
  fastify.addHook('preParsing', (request, _reply, payload, done) => {
    const value = request.raw.headers['content-type'];
    if (value !== undefined) {
      contentTypes.set(request.raw, value);
      delete request.raw.headers['content-type'];
    }
    done(null, payload);
  });
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request, _payload, done) => {
    restoreContentType(request.raw);
    const raw = request.raw as IncomingMessage & { body?: unknown };
    json(raw as Request, undefined as unknown as Response, (err?: unknown) => (err ? done(toDomainError(err) as Error, undefined) : done(null, raw.body)));
  });
  // The rest of the request runs in its context (request id, tenant) whatever the body reading did to the async context.
  fastify.addHook('preValidation', (request, _reply, done) => {
    restoreContentType(request.raw);
    resumeRequestContext(request.raw, done);
  });
  return app;
}

async function bootstrap(): Promise<void> {
  const logger = new Logger('Main');
  const config = loadConfigOrExit((m) => logger.error(m));
  Logger.overrideLogger(config.logFormat === 'json' ? new AppLogger(logLevels(config.logLevel), true) : logLevels(config.logLevel));
  let database: DatabaseServer | undefined;
  let app: INestApplication | undefined;
  let stopping = false;
  /**
   * SIGTERM (or SIGINT): readiness answers 503 at once and new requests are refused
   * with 503, the requests already running get SHUTDOWN_TIMEOUT_MS to finish (then
   * their connections are closed), the pools close, the embedded database stops,
   * and the process exits.
   */
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const lifecycle = app?.get(Lifecycle);
    lifecycle?.beginDrain();
    logger.log(`${signal} received: not ready any more; draining ${lifecycle?.inFlight ?? 0} request(s) for up to ${config.shutdownTimeoutMs} ms`);
    // Past the grace period and a margin for closing pools and stopping the database, exit regardless.
    const force = setTimeout(() => {
      logger.error('Shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + 10_000);
    force.unref();
    try {
      if (lifecycle && !(await lifecycle.drained(config.shutdownTimeoutMs))) {
        logger.warn(`${lifecycle.inFlight} request(s) still running after SHUTDOWN_TIMEOUT_MS; closing their connections`);
      }
      app?.getHttpServer().closeAllConnections();
      await app?.close();
      await database?.stop();
      logger.log('Stopped cleanly');
      process.exit(0);
    } catch (err) {
      logger.error(`Shutdown failed: ${(err as Error).message}`);
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  try {
    database = await openDatabaseServer(config, new Logger('Database'));
    app = await createApp(config, database.url);
    await app.listen(config.port, config.host);
  } catch (err) {
    logger.error(`Start failed: ${(err as Error).message}`, (err as Error).stack);
    await app?.close().catch(() => undefined);
    await database?.stop().catch(() => undefined);
    process.exit(1);
  }
  const outcome = app.get(BootstrapService).outcome;
  if (outcome.generatedPassword) {
    logger.log(
      `Bootstrap platform admin created: username ${outcome.email} password ${outcome.generatedPassword} ` +
        `(shown once; also written to ${outcome.credentialsFile})`,
    );
  } else if (outcome.created) {
    logger.log(`Bootstrap platform admin created: username ${outcome.email} (password from BOOTSTRAP_ADMIN_PASSWORD)`);
  }
  logger.log(`Identity service ready on ${config.publicUrl} (listening on ${config.host}:${config.port}; API docs at ${config.publicUrl}/api/docs)`);
}

if (require.main === module) {
  void bootstrap();
}
