import { Module } from '@nestjs/common';
import { ApiTokenModule } from '../api-token/api-token.module';
import { KeysModule } from '../keys/keys.module';
import { SectorModule } from '../sector/sector.module';
import { SettingsModule } from '../settings/settings.module';
import { UserModule } from '../user/user.module';
import { TenantController } from './tenant.controller';
import { TenantService } from './tenant.service';
import { AuditModule } from '../audit/audit.module';

@Module({
  imports: [AuditModule, ApiTokenModule, KeysModule, SectorModule, SettingsModule, UserModule],
  controllers: [TenantController],
  providers: [TenantService],
  exports: [TenantService],
})
export class TenantModule {}
