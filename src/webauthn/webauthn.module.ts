import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { MailModule } from '../mail/mail.module';
import { SettingsModule } from '../settings/settings.module';
import { UserModule } from '../user/user.module';
import { WebAuthnCoreModule } from './webauthn-core.module';
import { WebAuthnCredentialsController, WebAuthnLoginController, WebAuthnRegistrationController } from './webauthn.controller';
import { WebAuthnCredentialsService } from './webauthn-credentials.service';
import { WebAuthnLoginService } from './webauthn-login.service';
import { WebAuthnRegistrationService } from './webauthn-registration.service';
import { WebAuthnStrategy } from './webauthn.strategy';
import { AuditModule } from '../audit/audit.module';

/**
 * Passkeys (WebAuthn): sign-in (operations 14 and 15, on the sign-in engine with
 * the passkey strategy, which registers with its factor registry), registration for the signed-in user (18 and 19), and
 * the management of a user's passkeys.
 */
@Module({
  imports: [AuditModule, AuthModule, WebAuthnCoreModule, SettingsModule, UserModule, MailModule],
  controllers: [WebAuthnLoginController, WebAuthnRegistrationController, WebAuthnCredentialsController],
  providers: [WebAuthnStrategy, WebAuthnLoginService, WebAuthnRegistrationService, WebAuthnCredentialsService],
})
export class WebAuthnModule {}
