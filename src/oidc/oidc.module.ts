import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { HealthModule } from '../health/health.module';
import { KeysModule } from '../keys/keys.module';
import { UserModule } from '../user/user.module';
import { ConsoleModule } from '../console/console.module';
import { SessionModule } from '../session/session.module';
import { OidcInteractionController } from './oidc-interaction.controller';
import { OidcInteractionService } from './oidc-interaction.service';
import { OidcHttp } from './oidc-http';
import { OidcProviders } from './oidc-providers';
import { OidcStorageRepository } from './oidc-storage.repository';

/** Every sector an OpenID Provider: `oidc-provider` mounted per issuer, its storage in the tenant's database. */
@Module({
  imports: [KeysModule, CredentialsModule, HealthModule, UserModule, SessionModule, ConsoleModule],
  controllers: [OidcInteractionController],
  providers: [OidcProviders, OidcStorageRepository, OidcHttp, OidcInteractionService],
  exports: [OidcProviders],
})
export class OidcModule {}
