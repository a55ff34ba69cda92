import { Module } from '@nestjs/common';
import { SettingsController } from './settings.controller';
import { SettingsRepository } from './settings.repository';
import { SettingsService } from './settings.service';
import { SectorScopes } from './sector-scope';
import { AuditModule } from '../audit/audit.module';

@Module({
  imports: [AuditModule],
  controllers: [SettingsController],
  providers: [SettingsRepository, SettingsService, SectorScopes],
  exports: [SettingsRepository, SettingsService, SectorScopes],
})
export class SettingsModule {}
