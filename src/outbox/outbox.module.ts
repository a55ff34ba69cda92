import { Module } from '@nestjs/common';
import { OutboxPendingRepository } from './outbox-pending.repository';
import { OutboxSignal } from './outbox-signal';
import { OutboxWorker } from './outbox.worker';

/**
 * The delivery machinery shared by everything written to a tenant's outbox
 * tables with the change that caused it (mail and SMS, webhook deliveries): the
 * main database's pending hints, the worker, and the signal a caller gives after
 * its commit. Each kind of row is an OutboxQueue registered with the worker.
 */
@Module({
  providers: [OutboxPendingRepository, OutboxWorker, OutboxSignal],
  exports: [OutboxWorker, OutboxSignal],
})
export class OutboxModule {}
