import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { MailModule } from '../mail/mail.module';
import { OtpModule } from '../otp/otp.module';
import { SettingsModule } from '../settings/settings.module';
import { SessionModule } from '../session/session.module';
import { ThrottleModule } from '../throttle/throttle.module';
import { UserModule } from '../user/user.module';
import { AuthController } from './auth.controller';
import { FactorRegistryModule } from './engine/factor-registry.module';
import { SignInEngine } from './engine/sign-in-engine';
import { TransactionJanitor } from './engine/transaction-janitor';
import { InvitationService } from './invitation.service';
import { LoginService } from './login.service';
import { PasswordStrategy } from './password/password.strategy';
import { SignupService } from './signup.service';
import { AuditModule } from '../audit/audit.module';

/**
 * Sign-in: the engine (authentication transactions and their steps, with the
 * factor registry every factor's module registers its strategies with), the
 * password factor, and the endpoints of password and one-time-code login,
 * signup with email enrollment, and invitation acceptance. The other factors
 * live in their features' folders and modules (src/otp, src/webauthn,
 * src/oauth, src/account).
 */
@Module({
  imports: [AuditModule, FactorRegistryModule, KeysModule, SettingsModule, ThrottleModule, UserModule, OtpModule, MailModule, SessionModule],
  controllers: [AuthController],
  providers: [TransactionJanitor, SignInEngine, PasswordStrategy, LoginService, SignupService, InvitationService],
  exports: [FactorRegistryModule, SignInEngine, TransactionJanitor],
})
export class AuthModule {}
