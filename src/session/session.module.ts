import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { KeysModule } from '../keys/keys.module';
import { SettingsModule } from '../settings/settings.module';
import { UserModule } from '../user/user.module';
import { RequestContextMiddleware } from './request-context';
import { SessionController } from './session.controller';
import { SessionRepository } from './session.repository';
import { SessionService } from './session.service';

/** Sign-in sessions: refresh tokens, logout, listing and revocation (their access-token check is in AccessTokenVerifier). */
@Module({
  imports: [EventsModule, KeysModule, SettingsModule, UserModule],
  controllers: [SessionController],
  providers: [SessionRepository, SessionService, RequestContextMiddleware],
  exports: [SessionRepository, SessionService],
})
export class SessionModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestContextMiddleware).forRoutes('*path');
  }
}
