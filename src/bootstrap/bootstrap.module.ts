import { Module } from '@nestjs/common';
import { TenantModule } from '../tenant/tenant.module';
import { BootstrapService } from './bootstrap.service';

@Module({ imports: [TenantModule], providers: [BootstrapService], exports: [BootstrapService] })
export class BootstrapModule {}
