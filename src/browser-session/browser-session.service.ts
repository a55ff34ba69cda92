import { Injectable } from '@nestjs/common';
import type { Principal } from '../access/principal';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { RefreshableSession, RotatedSession, SessionService } from '../session/session.service';

const sameId = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Browser sessions: the console's refresh token kept in an HttpOnly cookie instead
 * of the page, so a reload stays signed in (docs/adr/0048-browser-sessions.md).
 * The refresh itself, with its reuse detection, is the session service's; this
 * only checks what the cookie may carry and for which sector.
 */
@Injectable()
export class BrowserSessionService {
  constructor(private readonly sessions: SessionService) {}

  /**
   * Checks a refresh token handed over for the cookie: unused, of a live session,
   * and of the caller's own session (the one their access token names) in `sectorID`.
   */
  async handOver(caller: Principal, sectorID: string, refreshToken: string): Promise<RefreshableSession> {
    if (caller.kind !== 'user' || !caller.sessionId) {
      throw DomainError.permissionDenied('Only a user signed in with an access token of a session can keep it in the browser.', Reason.REFRESH_TOKEN_MISMATCH);
    }
    const session = await this.sessions.sessionOfRefreshToken(refreshToken);
    if (!session) throw DomainError.unauthenticated(Reason.REFRESH_TOKEN_INVALID, 'The refresh token is invalid.');
    const own =
      session.tenantId === caller.tenant.id &&
      session.id === caller.sessionId &&
      session.userId === caller.userId &&
      session.sectorId === caller.sectorId &&
      sameId(sectorID, caller.sectorId);
    if (!own) throw DomainError.permissionDenied('The refresh token is not of the caller’s session in this sector.', Reason.REFRESH_TOKEN_MISMATCH);
    return session;
  }

  /** Rotates the cookie's refresh token exactly as `POST /api/v1/token/refresh` does; UNAUTHENTICATED without one or for another sector's. */
  async refresh(sectorID: string, refreshToken: string | undefined, clientIp: string): Promise<RotatedSession> {
    if (!refreshToken) throw DomainError.unauthenticated(Reason.CREDENTIAL_MISSING, 'This browser has no session of the sector: sign in.');
    const rotated = await this.sessions.rotate(refreshToken, clientIp);
    if (!sameId(rotated.session.sectorId, sectorID)) throw DomainError.unauthenticated(Reason.REFRESH_TOKEN_INVALID, 'The refresh token is invalid.');
    return rotated;
  }

  /** Ends the session the cookie names, as a logout does (nothing to do without one). */
  async end(refreshToken: string | undefined): Promise<void> {
    if (refreshToken) await this.sessions.endByRefreshToken(refreshToken);
  }
}
