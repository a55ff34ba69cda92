import { Module } from '@nestjs/common';
import { MailModule } from '../mail/mail.module';
import { SectorModule } from '../sector/sector.module';
import { SettingsModule } from '../settings/settings.module';
import { ThrottleModule } from '../throttle/throttle.module';
import { PasswordHasher } from './password-hasher';
import { UserController } from './user.controller';
import { UserAuthStates } from './user-auth-states';
import { UserRepository } from './user.repository';
import { UserService } from './user.service';
import { SignOutHooks } from './sign-out-hooks';
import { StepUpService } from './step-up.service';
import { AccountLinkRepository } from './account-link.repository';
import { AuditModule } from '../audit/audit.module';

/** Users of a sector: administration, profiles, invitations. */
@Module({
  imports: [AuditModule, SettingsModule, SectorModule, MailModule, ThrottleModule],
  controllers: [UserController],
  providers: [UserRepository, UserAuthStates, PasswordHasher, UserService, StepUpService, AccountLinkRepository, SignOutHooks],
  exports: [UserRepository, UserAuthStates, PasswordHasher, UserService, StepUpService, SignOutHooks],
})
export class UserModule {}
