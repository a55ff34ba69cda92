import 'reflect-metadata';
import { Logger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import express, { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { AppModule } from './app.module';
import { BootstrapService } from './bootstrap/bootstrap.service';
import { Lifecycle } from './health/lifecycle';
import { toDomainError } from './common/errors/error-mapper';
import { createValidationPipe } from './common/validation/validation';
import { AppLogger } from './common/logging/app-logger';
import { AppConfig, loadConfigOrExit } from './config/app-config';
import { DatabaseServer, openDatabaseServer } from './database/embedded-database';
import { headersSetBy, IntrospectionFastPath } from './introspection/introspection-fast-path';
import { setupOpenApi } from './openapi';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/**
 * The usual browser protections (helmet): no MIME sniffing, no referrer beyond
 * the origin, no framing, HSTS, and a content security policy that lets the docs
 * UI (its scripts are files, its styles partly inline) load from this origin only.
 * No `upgrade-insecure-requests`: the service also runs on plain HTTP locally.
 */
const SECURITY_HEADERS: Parameters<typeof helmet>[0] = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
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

export function logLevels(level: AppConfig['logLevel']): LogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

/**
 * Builds the HTTP application: JSON bodies up to 1 MiB (strict: objects and
 * arrays), the global validation pipe, the OpenAPI document. The only place that
 * knows the HTTP adapter is Express.
 */
export async function createApp(config: AppConfig, databaseUrl: string): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, databaseUrl), {
    bodyParser: false,
    logger: config.logFormat === 'json' ? new AppLogger(logLevels(config.logLevel), true) : logLevels(config.logLevel),
  });
  // Body-parser failures (malformed JSON, over 1 MiB) become domain errors here, so
  // the global filter maps them with their own reasons like any other error.
  const json = express.json({ limit: '1mb', strict: true });
  app.use((req: Request, res: Response, next: NextFunction) => json(req, res, (err?: unknown) => next(err ? toDomainError(err) : undefined)));
  app.set('trust proxy', config.trustProxy);
  if (config.trustProxy === true) {
    new Logger('Main').warn('TRUST_PROXY=true believes every X-Forwarded-For hop, so clients can pick the address the throttle counts; set the number of proxies or their addresses instead');
  }
  app.set('x-powered-by', false);
  app.use(helmet(SECURITY_HEADERS));
  app.useGlobalPipes(createValidationPipe());
  setupOpenApi(app, config.publicUrl);
  // The token hot path, in front of either adapter (src/introspection/introspection-fast-path.ts).
  app.get(IntrospectionFastPath).install(app.getHttpServer(), headersSetBy(helmet(SECURITY_HEADERS)));
  return app;
}

async function bootstrap(): Promise<void> {
  const logger = new Logger('Main');
  const config = loadConfigOrExit((m) => logger.error(m));
  Logger.overrideLogger(config.logFormat === 'json' ? new AppLogger(logLevels(config.logLevel), true) : logLevels(config.logLevel));
  let database: DatabaseServer | undefined;
  let app: NestExpressApplication | undefined;
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
