import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { ApiTokenModule } from '../api-token/api-token.module';
import { AuthModule } from '../auth/auth.module';
import { KeysModule } from '../keys/keys.module';
import { SettingsModule } from '../settings/settings.module';
import { UserModule } from '../user/user.module';
import { AuthenticationGuard, RoleGuard } from './auth.guards';
import { BearerStrategy } from './bearer.strategy';
import { AllowedOrigins, BrowserPolicyMiddleware } from '../access/browser-policy';
import { AccessTokenVerifier } from './access-token-verifier';
import { CredentialService } from './credential.service';

/**
 * Credentials: bearer credentials (access tokens, API tokens, transaction proofs) become
 * principals, and the global guards (authentication, then the role matrix of
 * src/access) admit or refuse every request — deny by default.
 */
@Module({
  imports: [PassportModule, KeysModule, UserModule, SettingsModule, ApiTokenModule, AuthModule],
  providers: [
    AccessTokenVerifier,
    CredentialService,
    BearerStrategy,
    AllowedOrigins,
    BrowserPolicyMiddleware,
    { provide: APP_GUARD, useClass: AuthenticationGuard },
    { provide: APP_GUARD, useClass: RoleGuard },
  ],
  exports: [AccessTokenVerifier, CredentialService, AllowedOrigins, BrowserPolicyMiddleware],
})
export class CredentialsModule {}
