import { Global, Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { createServer, Server } from 'node:http';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { HttpMetricsMiddleware } from './http-metrics.middleware';
import { MetricsController } from './metrics.controller';
import { Metrics } from './metrics.service';
import { PoolCollectors } from './pool-collectors';

/** METRICS_PORT: the metrics alone on their own listener (e.g. 127.0.0.1:9464), reachable only where the operator binds it. */
@Injectable()
class MetricsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: Server | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.metricsPort === undefined) return;
    this.server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      void this.metrics.render().then(
        (body) => res.writeHead(200, { 'content-type': this.metrics.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.config.metricsPort, this.config.metricsHost, () => resolve());
    });
    new Logger('Metrics').log(`Metrics on http://${this.config.metricsHost}:${this.config.metricsPort}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Prometheus metrics: the registry every module counts into, the scrape endpoints, the collectors of pool state. */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [Metrics, PoolCollectors, HttpMetricsMiddleware, MetricsListener],
  exports: [Metrics, HttpMetricsMiddleware],
})
export class MetricsModule {}
