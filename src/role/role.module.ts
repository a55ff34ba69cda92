import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { UserModule } from '../user/user.module';
import { RoleController } from './role.controller';
import { RoleRepository } from './role.repository';
import { RoleService } from './role.service';

/** A sector's roles and permissions, and which users hold them. */
@Module({
  imports: [AuditModule, UserModule],
  controllers: [RoleController],
  providers: [RoleRepository, RoleService],
  exports: [RoleRepository],
})
export class RoleModule {}
