import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { ApiTokenModule } from '../api-token/api-token.module';
import { AuthModule } from '../auth/auth.module';
import { KeysModule } from '../keys/keys.module';
import { SettingsModule } from '../settings/settings.module';
import { UserModule } from '../user/user.module';
import { AuthenticationGuard, RoleGuard } from './auth.guards';
import { BearerStrategy } from './bearer.strategy';
import { AllowedOrigins, BrowserPolicyMiddleware } from './browser-policy';
import { CredentialService } from './credential.service';

/**
 * Access control: bearer credentials become principals, and the global guards
 * (authentication, then the role matrix) admit or refuse every request — deny by default.
 */
@Global()
@Module({
  imports: [PassportModule, KeysModule, UserModule, SettingsModule, ApiTokenModule, AuthModule],
  providers: [
    CredentialService,
    BearerStrategy,
    AllowedOrigins,
    BrowserPolicyMiddleware,
    { provide: APP_GUARD, useClass: AuthenticationGuard },
    { provide: APP_GUARD, useClass: RoleGuard },
  ],
  exports: [CredentialService, AllowedOrigins, BrowserPolicyMiddleware],
})
export class AccessModule {}
