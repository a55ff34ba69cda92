import { Module } from '@nestjs/common';
import { CredentialsModule } from '../credentials/credentials.module';
import { SessionModule } from '../session/session.module';
import { BrowserSessionController } from './browser-session.controller';
import { BrowserSessionService } from './browser-session.service';
import { SameOriginGuard } from './same-origin.guard';
import { SessionCookies } from './session-cookie';

/** Browser sessions: the console's refresh token in an HttpOnly cookie (docs/adr/0048-browser-sessions.md). */
@Module({
  imports: [CredentialsModule, SessionModule],
  controllers: [BrowserSessionController],
  providers: [BrowserSessionService, SameOriginGuard, SessionCookies],
})
export class BrowserSessionModule {}
