import { Injectable, NestMiddleware } from '@nestjs/common';
import { IncomingRequest, routeTemplate } from '../common/http/request';
import { Metrics } from './metrics.service';

interface MeteredResponse {
  statusCode: number;
  once(event: 'finish', listener: () => void): unknown;
}

/**
 * Counts and times every request by method, route template (`/api/v1/users/:sub`,
 * never the concrete path, so ids do not explode the series) and status. Requests
 * that matched no route count as `unmatched`.
 */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: Metrics) {}

  use(req: IncomingRequest, res: MeteredResponse, next: () => void): void {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      this.metrics.recordHttp(req.method ?? '', routeTemplate(req), res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  }
}
