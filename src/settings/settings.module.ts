import { Module } from '@nestjs/common';
import { SettingsController } from './settings.controller';
import { SettingsRepository } from './settings.repository';
import { SettingsService } from './settings.service';
import { SectorScopes } from './sector-scope';

@Module({
  controllers: [SettingsController],
  providers: [SettingsRepository, SettingsService, SectorScopes],
  exports: [SettingsRepository, SettingsService, SectorScopes],
})
export class SettingsModule {}
