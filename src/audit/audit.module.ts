import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';

/** The audit trail: every domain that changes something security-relevant imports it and appends to it (src/audit-log reads it over HTTP). */
@Module({
  imports: [EventsModule],
  providers: [AuditRepository, AuditService],
  exports: [AuditRepository, AuditService, EventsModule],
})
export class AuditModule {}
