import { Module } from '@nestjs/common';
import { ApiTokenController } from './api-token.controller';
import { ApiTokenRepository } from './api-token.repository';
import { ApiTokenService } from './api-token.service';
import { AuditModule } from '../audit/audit.module';

/** Sector API tokens: issue, list, revoke, and authenticate them. */
@Module({
  imports: [AuditModule],
  controllers: [ApiTokenController],
  providers: [ApiTokenRepository, ApiTokenService],
  exports: [ApiTokenService, ApiTokenRepository],
})
export class ApiTokenModule {}
