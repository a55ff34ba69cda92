import { Inject, Injectable, Logger, NestMiddleware } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { IncomingRequest, routeTemplate } from '../http/request';
import { RequestContext, requestContext } from '../http/request-context';

interface LoggedResponse {
  statusCode: number;
  once(event: 'finish', listener: () => void): unknown;
}

/**
 * Writes one access-log line (the middleware below and the introspection fast
 * path). `started` is the request's `process.hrtime.bigint()`. The end of a
 * response runs outside the request's async context: the line is logged within
 * the request's `context`, so it carries the request id, tenant and sector.
 */
export function logAccess(logger: Logger, context: RequestContext | undefined, method: string, route: string, status: number, started: bigint): void {
  const line = { method, route, status, durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100 };
  if (context) requestContext.run(context, () => logger.log(line));
  else logger.log(line);
}

/**
 * With LOG_FORMAT=json, one access-log line per request: method, route template,
 * status, duration and request id (the tenant and sector come with every line) —
 * never the concrete path, a query string, a body, a token or a code.
 */
@Injectable()
export class AccessLogMiddleware implements NestMiddleware {
  private readonly logger = new Logger('Access');

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  use(req: IncomingRequest, res: LoggedResponse, next: () => void): void {
    if (this.config.logFormat !== 'json') return next();
    const started = process.hrtime.bigint();
    const store = requestContext.getStore();
    res.once('finish', () => {
      logAccess(this.logger, store, req.method ?? '', routeTemplate(req), res.statusCode, started);
    });
    next();
  }
}
