import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { HealthModule } from '../health/health.module';
import { KeysModule } from '../keys/keys.module';
import { UserModule } from '../user/user.module';
import { OidcHttp } from './oidc-http';
import { OidcProviders } from './oidc-providers';
import { OidcStorageRepository } from './oidc-storage.repository';

/** Every sector an OpenID Provider: `oidc-provider` mounted per issuer, its storage in the tenant's database. */
@Module({
  imports: [KeysModule, CredentialsModule, HealthModule, UserModule],
  providers: [OidcProviders, OidcStorageRepository, OidcHttp],
  exports: [OidcProviders],
})
export class OidcModule {}
