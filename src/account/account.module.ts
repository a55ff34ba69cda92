import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { MailModule } from '../mail/mail.module';
import { SettingsModule } from '../settings/settings.module';
import { ThrottleModule } from '../throttle/throttle.module';
import { UserModule } from '../user/user.module';
import { AccountController } from './account.controller';
import { AccountLinkRepository } from '../user/account-link.repository';
import { AccountService } from './account.service';
import { MagicLinkStrategy } from './magic-link.strategy';
import { AuditModule } from '../audit/audit.module';

/** Password reset, magic-link sign-in (its strategy registers with the sign-in engine's factor registry) and email verification by mailed single-use links. */
@Module({
  imports: [AuditModule, AuthModule, MailModule, SettingsModule, ThrottleModule, UserModule],
  controllers: [AccountController],
  providers: [AccountLinkRepository, MagicLinkStrategy, AccountService],
})
export class AccountModule {}
