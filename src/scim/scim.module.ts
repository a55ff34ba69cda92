import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { MailModule } from '../mail/mail.module';
import { RoleModule } from '../role/role.module';
import { UserModule } from '../user/user.module';
import { ScimController } from './scim.controller';
import { ScimExceptionFilter } from './scim-error';
import { ScimGroupService } from './scim-group.service';
import { ScimThrottleGuard } from './scim-throttle.guard';
import { ScimUserService } from './scim-user.service';

/** Each sector's SCIM 2.0 service provider: provisioning from Entra ID, Okta and other directories. */
@Module({
  imports: [AuditModule, MailModule, UserModule, RoleModule],
  controllers: [ScimController],
  providers: [ScimUserService, ScimGroupService, ScimExceptionFilter, ScimThrottleGuard],
})
export class ScimModule {}
