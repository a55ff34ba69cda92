import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { EventsModule } from '../events/events.module';
import { OutboxModule } from '../outbox/outbox.module';
import { WebhookController } from './webhook.controller';
import { WebhookDeliveryRepository } from './webhook-delivery.repository';
import { WebhookQueue } from './webhook-queue';
import { WebhookSender } from './webhook-sender';
import { WebhookRepository } from './webhook.repository';
import { WebhookService } from './webhook.service';

/**
 * A sector's webhooks: the admin API (endpoints, secrets, delivery log, test
 * events) and the delivery of the service's events to them through the outbox.
 */
@Module({
  // OutboxModule: the worker the delivery queue registers with.
  imports: [AuditModule, EventsModule, OutboxModule],
  controllers: [WebhookController],
  providers: [
    // Admin API.
    WebhookRepository,
    WebhookService,
    // Delivery (outbox queue, sender, delivery repository).
    WebhookDeliveryRepository,
    WebhookSender,
    WebhookQueue,
  ],
})
export class WebhookModule {}
