import { Injectable, Logger } from '@nestjs/common';
import { ALL_EVENTS, ServiceEvent } from './service-event';

/** A subscriber in process: called after the change's transaction committed. */
export type EventHandler = (event: ServiceEvent) => void | Promise<void>;

interface Subscription {
  name: string;
  types: ReadonlySet<string>;
  handler: EventHandler;
}

/**
 * The in-process side of the service's events (extension modules subscribe
 * here). An event reaches the subscribers of the instance whose transaction
 * committed it, once, after the commit: at most once, since a crash right after
 * the commit loses it here (webhooks, which are written with the change, do not
 * lose it). A handler that throws or rejects is logged with its name and does
 * not reach the change, the other handlers or the caller.
 */
@Injectable()
export class EventBus {
  private readonly logger = new Logger('Events');
  private readonly subscriptions: Subscription[] = [];

  /** Calls `handler` for the events of `types` (`['*']`: all); `name` appears in logs (an extension module's name). */
  subscribe(name: string, types: readonly string[], handler: EventHandler): () => void {
    const subscription: Subscription = { name, types: new Set(types), handler };
    this.subscriptions.push(subscription);
    return () => {
      const at = this.subscriptions.indexOf(subscription);
      if (at >= 0) this.subscriptions.splice(at, 1);
    };
  }

  /** Has anybody subscribed at all? (Events are only built for the bus when so.) */
  get active(): boolean {
    return this.subscriptions.length > 0;
  }

  /** Hands the event to each subscriber of its type; never throws. */
  publish(event: ServiceEvent): void {
    for (const s of this.subscriptions) {
      if (!s.types.has(ALL_EVENTS) && !s.types.has(event.type)) continue;
      try {
        void Promise.resolve(s.handler(event)).catch((err: unknown) => this.failed(s, event, err));
      } catch (err) {
        this.failed(s, event, err);
      }
    }
  }

  private failed(s: Subscription, event: ServiceEvent, err: unknown): void {
    this.logger.error(`Event subscriber ${s.name} failed on ${event.type} ${event.id}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
