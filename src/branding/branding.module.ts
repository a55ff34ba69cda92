import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { SettingsModule } from '../settings/settings.module';
import { BrandingController } from './branding.controller';
import { BrandingRepository } from './branding.repository';
import { BrandingService } from './branding.service';

/** A sector's logo and favicon (its other branding settings are the settings module's). */
@Module({
  imports: [AuditModule, SettingsModule],
  controllers: [BrandingController],
  providers: [BrandingRepository, BrandingService],
})
export class BrandingModule {}
