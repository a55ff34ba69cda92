import { Module } from '@nestjs/common';
import { SettingsModule } from '../settings/settings.module';
import { SectorController } from './sector.controller';
import { SectorRepository } from './sector.repository';
import { SectorService } from './sector.service';

@Module({
  imports: [SettingsModule],
  controllers: [SectorController],
  providers: [SectorRepository, SectorService],
  exports: [SectorRepository, SectorService],
})
export class SectorModule {}
