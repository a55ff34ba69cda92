import type { TenantDb } from '../tenancy/tenant-db';
import type { ExactTime } from './outbox-pending.repository';

/**
 * One kind of row a tenant's outbox tables hold (mail and SMS, webhook
 * deliveries): written in the transaction of the change that caused it and
 * delivered by the OutboxWorker, which looks at a tenant when its hint is due and
 * asks every queue. A queue registers with the worker in its module's
 * `onModuleInit`.
 */
export interface OutboxQueue {
  /** For logs. */
  readonly name: string;
  /**
   * Claims and delivers the tenant's due rows until none is left or `stopping()`
   * answers true (claimed rows not tried are given back). Throws only when the
   * tenant's storage cannot be reached; a failed delivery is rescheduled.
   */
  drain(db: TenantDb, stopping: () => boolean): Promise<void>;
  /** When the queue's next pending row may be claimed, as exact text; null when nothing is pending. */
  nextDueAt(db: TenantDb): Promise<ExactTime | null>;
  /** Deletes delivered rows past their retention (run by the periodic sweep). */
  purge(db: TenantDb): Promise<void>;
}

/** The earlier of two due times (exact texts compare as times), null meaning none. */
export function earliest(a: ExactTime | null, b: ExactTime | null): ExactTime | null {
  if (a === null) return b;
  if (b === null) return a;
  return a < b ? a : b;
}
