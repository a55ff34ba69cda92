import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's Prometheus metrics, in one registry (not prom-client's global
 * one, so several apps in one process — the test suite — keep theirs apart).
 * Counters are incremented where things happen; gauges that describe state (pools,
 * the outbox) are filled by collectors when a scrape comes.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'iam_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'iam_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  /** The label children of each (method, route, status) seen, so recording one request builds no label key. */
  private readonly httpSeries = new Map<string, { count: Counter.Internal; duration: Histogram.Internal<'method' | 'route' | 'status'> }>();

  /**
   * Counts and times one answered request (the HTTP middleware and the
   * introspection fast path). Routes are templates, so the series stay few.
   */
  recordHttp(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.httpSeries.get(key);
    if (series === undefined) {
      const status_ = String(status);
      series = { count: this.httpRequests.labels(method, route, status_), duration: this.httpDuration.labels(method, route, status_) };
      this.httpSeries.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }

  readonly signIns = new Counter({
    name: 'iam_sign_in_attempts_total',
    help: 'Sign-in steps, by factor, outcome (success, failure) and reason of a failure.',
    labelNames: ['factor', 'outcome', 'reason'] as const,
    registers: [this.registry],
  });

  readonly throttleBlocks = new Counter({
    name: 'iam_throttle_blocks_total',
    help: 'Requests refused by the attempt throttle or a rate limit, by kind and reason.',
    labelNames: ['kind', 'reason'] as const,
    registers: [this.registry],
  });

  readonly outboxDeliveries = new Counter({
    name: 'iam_outbox_deliveries_total',
    help: 'Outbox delivery attempts (mail, SMS), by channel and outcome (sent, failed).',
    labelNames: ['channel', 'outcome'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'iam_' });
  }

  /** A gauge whose value is read by `collect` at each scrape. */
  gauge<L extends string>(name: string, help: string, labelNames: readonly L[], collect: (set: (labels: Record<L, string>, value: number) => void) => Promise<void> | void): void {
    const gauge: Gauge<L> = new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        gauge.reset();
        await collect((labels, value) => gauge.set(labels, value));
      },
    });
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
