import { Inject, Injectable, Logger, NestMiddleware } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { IncomingRequest, routeTemplate } from '../http/request';
import { requestContext } from '../http/request-context';

interface LoggedResponse {
  statusCode: number;
  once(event: 'finish', listener: () => void): unknown;
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
      const line = {
        method: req.method ?? '',
        route: routeTemplate(req),
        status: res.statusCode,
        durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
      };
      // The finish event runs outside the request's async context: log within it.
      if (store) requestContext.run(store, () => this.logger.log(line));
      else this.logger.log(line);
    });
    next();
  }
}
