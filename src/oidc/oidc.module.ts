import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { HealthModule } from '../health/health.module';
import { KeysModule } from '../keys/keys.module';
import { UserModule } from '../user/user.module';
import { ConsoleModule } from '../console/console.module';
import { SessionModule } from '../session/session.module';
import { OidcClientController } from './oidc-client.controller';
import { OidcClientService } from './oidc-client.service';
import { OidcClientStore } from './oidc-client-store';
import { AuditModule } from '../audit/audit.module';
import { OidcInteractionController } from './oidc-interaction.controller';
import { OidcInteractionService } from './oidc-interaction.service';
import { OidcHttp } from './oidc-http';
import { OidcProviders } from './oidc-providers';
import { OidcGrantController } from './oidc-grant.controller';
import { OidcGrantService } from './oidc-grant.service';
import { OidcSignOut } from './oidc-sign-out';
import { OidcStorageRepository } from './oidc-storage.repository';

/** Every sector an OpenID Provider: `oidc-provider` mounted per issuer, its storage in the tenant's database. */
@Module({
  imports: [KeysModule, CredentialsModule, HealthModule, UserModule, SessionModule, ConsoleModule, AuditModule],
  controllers: [OidcInteractionController, OidcClientController, OidcGrantController],
  providers: [OidcProviders, OidcStorageRepository, OidcHttp, OidcInteractionService, OidcClientStore, OidcClientService, OidcSignOut, OidcGrantService],
  exports: [OidcProviders],
})
export class OidcModule {}
