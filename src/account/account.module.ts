import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { MailModule } from '../mail/mail.module';
import { SettingsModule } from '../settings/settings.module';
import { ThrottleModule } from '../throttle/throttle.module';
import { UserModule } from '../user/user.module';
import { AccountController } from './account.controller';
import { AccountService } from './account.service';

/** Password reset, magic-link sign-in and email verification by mailed single-use links. */
@Module({
  imports: [AuthModule, MailModule, SettingsModule, ThrottleModule, UserModule],
  controllers: [AccountController],
  providers: [AccountService],
})
export class AccountModule {}
