import { Module } from '@nestjs/common';
import { KeysModule } from '../keys/keys.module';
import { MailModule } from '../mail/mail.module';
import { OtpModule } from '../otp/otp.module';
import { SettingsModule } from '../settings/settings.module';
import { SessionModule } from '../session/session.module';
import { ThrottleModule } from '../throttle/throttle.module';
import { UserModule } from '../user/user.module';
import { WebAuthnCoreModule } from '../webauthn/webauthn-core.module';
import { AuthController } from './auth.controller';
import { AuthTransactionRepository } from './engine/auth-transaction.repository';
import { SignInEngine } from './engine/sign-in-engine';
import { TransactionJanitor } from './engine/transaction-janitor';
import { InvitationService } from './invitation.service';
import { LoginService } from './login.service';
import { SignupService } from './signup.service';
import { FACTOR_STRATEGY_PROVIDERS } from './strategies';
import { WebAuthnStrategy } from './strategies/webauthn.strategy';
import { MagicLinkStrategy } from './strategies/magic-link.strategy';
import { AccountLinkRepository } from '../account/account-link.repository';

/**
 * Sign-in: the engine (authentication transactions and their steps), one
 * strategy per factor (src/auth/strategies), and the endpoints that use them —
 * login, signup with email enrollment, invitation acceptance.
 */
@Module({
  imports: [KeysModule, SettingsModule, ThrottleModule, UserModule, OtpModule, MailModule, WebAuthnCoreModule, SessionModule],
  controllers: [AuthController],
  providers: [
    AuthTransactionRepository,
    TransactionJanitor,
    SignInEngine,
    ...FACTOR_STRATEGY_PROVIDERS,
    LoginService,
    SignupService,
    InvitationService,
    AccountLinkRepository,
  ],
  exports: [AuthTransactionRepository, SignInEngine, TransactionJanitor, WebAuthnStrategy, MagicLinkStrategy, AccountLinkRepository],
})
export class AuthModule {}
