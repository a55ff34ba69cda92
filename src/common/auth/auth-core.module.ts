import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { ApiTokenModule } from '../../api-token/api-token.module';
import { AuthModule } from '../../auth/auth.module';
import { KeysModule } from '../../keys/keys.module';
import { SettingsModule } from '../../settings/settings.module';
import { UserModule } from '../../user/user.module';
import { AuthenticationGuard, RoleGuard } from './auth.guards';
import { BearerStrategy } from './bearer.strategy';
import { CredentialService } from './credential.service';

/** Authentication of bearer credentials and the global guards (deny by default). */
@Global()
@Module({
  imports: [PassportModule, KeysModule, UserModule, SettingsModule, ApiTokenModule, AuthModule],
  providers: [
    CredentialService,
    BearerStrategy,
    { provide: APP_GUARD, useClass: AuthenticationGuard },
    { provide: APP_GUARD, useClass: RoleGuard },
  ],
  exports: [CredentialService],
})
export class AuthCoreModule {}
