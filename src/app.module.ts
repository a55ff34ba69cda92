import { ENTITIES } from './entities';
import { DynamicModule, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ApiTokenModule } from './api-token/api-token.module';
import { AuthModule } from './auth/auth.module';
import { AccountModule } from './account/account.module';
import { SessionModule } from './session/session.module';
import { BrowserSessionModule } from './browser-session/browser-session.module';
import { BootstrapModule } from './bootstrap/bootstrap.module';
import { CredentialsModule } from './credentials/credentials.module';
import { CryptoModule } from './common/crypto/crypto.module';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { ErrorFormatsModule } from './common/errors/error-formats';
import { RequestIdMiddleware } from './common/http/request-id.middleware';
import { AccessLogMiddleware } from './common/logging/access-log.middleware';
import { BrowserPolicyMiddleware } from './access/browser-policy';
import { DrainMiddleware } from './health/lifecycle';
import { HttpMetricsMiddleware } from './metrics/http-metrics.middleware';
import { MetricsModule } from './metrics/metrics.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { IntrospectionModule } from './introspection/introspection.module';
import { AuditModule } from './audit/audit.module';
import { AuditLogModule } from './audit-log/audit-log.module';
import { SectorStatsModule } from './sector-stats/sector-stats.module';
import { KeysModule } from './keys/keys.module';
import { OtpModule } from './otp/otp.module';
import { MailModule } from './mail/mail.module';
import { SectorModule } from './sector/sector.module';
import { SettingsModule } from './settings/settings.module';
import { TemplatePreviewModule } from './mail/template-preview.module';
import { TenancyModule } from './tenancy/tenancy.module';
import { TenantModule } from './tenant/tenant.module';
import { UserModule } from './user/user.module';
import { RoleModule } from './role/role.module';
import { WebhookModule } from './webhook/webhook.module';
import { BrandingModule } from './branding/branding.module';
import { ScimModule } from './scim/scim.module';
import { WebAuthnModule } from './webauthn/webauthn.module';
import { OAuthModule } from './oauth/oauth.module';
import { OidcModule } from './oidc/oidc.module';
import { ConsoleModule } from './console/console.module';
import { ExtensionModule } from './extensions/extension-api';
import { ExtensionsModule } from './extensions/extensions.module';

@Module({})
export class AppModule implements NestModule {
  /**
   * The whole service for a validated configuration and the main database URL, with
   * the extension modules loaded from EXTENSION_MODULES (src/extensions/extension-loader.ts).
   */
  static forRoot(config: AppConfig, databaseUrl: string, extensions: readonly ExtensionModule[] = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        CryptoModule,
        ErrorFormatsModule,
        DatabaseModule.forRoot(databaseUrl, ENTITIES),
        TenancyModule.forRoot(),
        MetricsModule,
        CredentialsModule,
        AuditModule,
        AuditLogModule,
        SectorStatsModule,
        KeysModule,
        UserModule,
        SettingsModule,
        BrandingModule,
        TemplatePreviewModule,
        MailModule,
        SectorModule,
        TenantModule,
        AuthModule,
        SessionModule,
        BrowserSessionModule,
        AccountModule,
        ApiTokenModule,
        RoleModule,
        WebhookModule,
        ScimModule,
        OtpModule,
        WebAuthnModule,
        OAuthModule,
        OidcModule,
        IntrospectionModule,
        HealthModule,
        BootstrapModule,
        ConsoleModule,
        ExtensionsModule,
        ...extensions,
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestIdMiddleware, AccessLogMiddleware, HttpMetricsMiddleware, DrainMiddleware, BrowserPolicyMiddleware).forRoutes('*path');
  }
}
