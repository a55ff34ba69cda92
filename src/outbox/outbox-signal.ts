import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { describeDeliveryError } from './delivery-error';
import { OutboxPendingRepository } from './outbox-pending.repository';
import { OutboxWorker } from './outbox.worker';

/**
 * Says that a tenant's outbox holds something new, after the transaction that
 * wrote it committed: records it in the main database's `outbox_pending` (so the
 * workers of every instance find it) and wakes this instance's worker.
 */
@Injectable()
export class OutboxSignal implements OnApplicationShutdown {
  private readonly logger = new Logger('Outbox');
  /** Hints being written: waited for at shutdown, before the main pool closes. */
  private readonly kicking = new Set<Promise<void>>();

  constructor(
    private readonly pending: OutboxPendingRepository,
    private readonly worker: OutboxWorker,
  ) {}

  /**
   * Returns at once and never throws (the caller's change is committed): a hint
   * that cannot be written is logged, and the row is still delivered by this
   * worker's pass, or else found by the periodic sweep.
   */
  kick(tenantId: string): void {
    const kicked = this.pending
      .touch(tenantId)
      .catch((err: unknown) => this.logger.warn(`Outbox hint of tenant ${tenantId} not written: ${describeDeliveryError(err)}`))
      .then(() => this.worker.kick(tenantId));
    this.kicking.add(kicked);
    void kicked.finally(() => this.kicking.delete(kicked));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.kicking]);
  }
}
