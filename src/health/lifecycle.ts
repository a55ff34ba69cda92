import { Injectable, NestMiddleware } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { toWireError } from '../common/errors/error-mapper';
import { ensureRequestId, IncomingRequest, routingPath } from '../common/http/request';

/** The response side the drain needs; structural, so it works on any Nest HTTP adapter. */
interface DrainResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
  once(event: 'finish' | 'close', listener: () => void): unknown;
}

/** Probes stay answered while draining: the balancer must see the instance leave. */
const PROBES = new Set(['/healthz', '/readyz']);

/**
 * The process's serving state. On SIGTERM the service starts draining: `/readyz`
 * answers 503 at once, new requests are refused with 503 and `Connection: close`
 * (the balancer retries them elsewhere), and the requests already running finish;
 * `drained` resolves when none is left (or the grace period ends).
 */
@Injectable()
export class Lifecycle {
  private active = 0;
  private isDraining = false;
  private idle: Array<() => void> = [];

  get draining(): boolean {
    return this.isDraining;
  }

  get inFlight(): number {
    return this.active;
  }

  beginDrain(): void {
    this.isDraining = true;
  }

  /** Resolves true once no request is running, or false when `timeoutMs` passes first. */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.active === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /**
   * Counts a request as running until its response finishes or its connection
   * closes, whichever comes first; then calls `done` once.
   */
  track(res: Pick<DrainResponse, 'once'>, done: () => void): void {
    this.started();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.finished();
      done();
    };
    res.once('finish', end);
    res.once('close', end);
  }

  started(): void {
    this.active += 1;
  }

  finished(): void {
    this.active -= 1;
    if (this.active === 0) for (const wake of this.idle.splice(0)) wake();
  }
}

/** Counts running requests, and refuses new ones (but the probes) while draining. */
@Injectable()
export class DrainMiddleware implements NestMiddleware {
  constructor(private readonly lifecycle: Lifecycle) {}

  use(req: IncomingRequest, res: DrainResponse, next: () => void): void {
    const path = routingPath(req.originalUrl ?? req.url);
    if (this.lifecycle.draining && !PROBES.has(path)) {
      const wire = toWireError(DomainError.unavailable(Reason.SHUTTING_DOWN, 'This instance is shutting down; retry the request.'), ensureRequestId(req));
      res.statusCode = wire.status;
      for (const [name, value] of Object.entries(wire.headers)) res.setHeader(name, value);
      res.setHeader('Connection', 'close');
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(JSON.stringify(wire.body));
      return;
    }
    this.lifecycle.track(res, () => undefined);
    if (this.lifecycle.draining) res.setHeader('Connection', 'close');
    next();
  }
}
