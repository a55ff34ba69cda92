import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { MailModule } from '../mail/mail.module';
import { OtpModule } from '../otp/otp.module';
import { SettingsModule } from '../settings/settings.module';
import { ThrottleModule } from '../throttle/throttle.module';
import { UserModule } from '../user/user.module';
import { AuthFlowService } from './auth-flow.service';
import { AuthTransactionRepository } from './auth-transaction.repository';
import { AuthController } from './auth.controller';
import { OtpLoginService } from './otp-login.service';
import { SignupService } from './signup.service';
import { TransactionJanitor } from './transaction-janitor';

/** Sign-in flows: authentication transactions and their steps. */
@Module({
  imports: [KeysModule, SettingsModule, ThrottleModule, UserModule, OtpModule, MailModule],
  controllers: [AuthController],
  providers: [AuthFlowService, AuthTransactionRepository, SignupService, OtpLoginService, TransactionJanitor],
  exports: [AuthFlowService, AuthTransactionRepository],
})
export class AuthModule {}
