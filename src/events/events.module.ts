import { Module } from '@nestjs/common';
import { OutboxModule } from '../outbox/outbox.module';
import { EventBus } from './event-bus';
import { EventOutboxRepository } from './event-outbox.repository';
import { EventsService } from './events.service';

/**
 * The service's events (src/events/service-event.ts): written to the webhooks'
 * outbox with the change that caused them, and handed to in-process
 * subscribers (extension modules) after its commit. Domains announce through
 * EventsService; most events come from the audit trail (AuditService).
 */
@Module({
  imports: [OutboxModule],
  providers: [EventBus, EventOutboxRepository, EventsService],
  exports: [EventBus, EventsService],
})
export class EventsModule {}
