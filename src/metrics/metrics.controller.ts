import { Controller, Get, Header, Inject, Headers } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { timingSafeEqual } from 'node:crypto';
import { Public } from '../access/decorators';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Metrics } from './metrics.service';

/**
 * `GET /metrics` in the Prometheus text format, for a scraper holding
 * METRICS_TOKEN (`Authorization: Bearer <token>`); without METRICS_TOKEN the route
 * does not exist on the public port (use METRICS_PORT for a separate listener).
 */
@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  @Public()
  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  async scrape(@Headers('authorization') authorization: string | undefined): Promise<string> {
    const token = this.config.metricsToken;
    if (!token) throw DomainError.notFound(Reason.ROUTE_NOT_FOUND, 'No such route.');
    const given = Buffer.from(authorization ?? '');
    const wanted = Buffer.from(`Bearer ${token}`);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
      throw DomainError.unauthenticated(Reason.CREDENTIAL_MISSING, 'The metrics token is required (Authorization: Bearer <METRICS_TOKEN>).');
    }
    return this.metrics.render();
  }
}
