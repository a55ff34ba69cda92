import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { SectorModule } from '../sector/sector.module';
import { SettingsModule } from '../settings/settings.module';
import { ThrottleModule } from '../throttle/throttle.module';
import { UserModule } from '../user/user.module';
import { IdentitiesService } from './identities.service';
import { LinkedIdentitiesController, OAuthLoginController, OAuthProvidersController } from './oauth.controller';
import { OAuthProviderRepository } from './oauth-provider.repository';
import { ProviderClients } from './provider-clients';
import { ProviderConfigService } from './provider-config.service';
import { ProviderTester } from './provider-tester';
import { SignInOptionsController } from './sign-in-options.controller';
import { SignInOptionsService } from './sign-in-options.service';
import { SocialLoginService } from './social-login.service';
import { SocialStrategy } from './social.strategy';
import { AuditModule } from '../audit/audit.module';

/**
 * Social login: the sectors' provider configuration (operation 9), sign-in
 * through a provider (operation 17, the callback, the token exchange) on the
 * sign-in engine with the social strategy (which registers with the engine's
 * factor registry), and users' linked identities.
 */
@Module({
  imports: [AuditModule, AuthModule, SectorModule, SettingsModule, ThrottleModule, UserModule],
  controllers: [OAuthProvidersController, OAuthLoginController, LinkedIdentitiesController, SignInOptionsController],
  providers: [OAuthProviderRepository, ProviderConfigService, ProviderClients, ProviderTester, SocialLoginService, IdentitiesService, SocialStrategy, SignInOptionsService],
})
export class OAuthModule {}
