import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuditController } from './audit-log.controller';

/** Reading the audit trail over HTTP (GET /api/v1/sectors/{sectorID}/audit-events); src/audit records it. */
@Module({ imports: [AuditModule], controllers: [AuditController] })
export class AuditLogModule {}
