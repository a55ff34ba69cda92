import { Body, Controller, Delete, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, ClientIp, CurrentPrincipal, Public } from '../access/decorators';
import { Principal } from '../access/principal';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-codes';
import { ApiErrors } from '../common/http/api-errors';
import type { IncomingRequest } from '../common/http/request';
import { unixSeconds } from '../common/wire/wire';
import {
  BrowserSessionRefreshResponse,
  EndBrowserSessionResponse,
  HandOverBrowserSessionDto,
  HandOverBrowserSessionResponse,
} from './dto/browser-session.dto';
import { BrowserSessionService } from './browser-session.service';
import { CSRF_HEADER_VALUE, SameOriginGuard } from './same-origin.guard';
import { SessionCookies } from './session-cookie';

const CSRF_HEADER_DOC = { name: 'X-Requested-With', required: true, description: `Must be \`${CSRF_HEADER_VALUE}\` (cross-site request forgery defence).` };

/**
 * The console's sessions in the browser: the refresh token of a sign-in is handed
 * over once and kept in an HttpOnly cookie scoped to the sector's path; the page
 * renews its access token with the cookie and ends the session with it.
 */
@ApiTags('Browser sessions')
@ApiErrors()
@Controller('api/v1/browser-sessions')
export class BrowserSessionController {
  constructor(
    private readonly browserSessions: BrowserSessionService,
    private readonly cookies: SessionCookies,
  ) {}

  @Post(':sectorID')
  @HttpCode(200)
  @ApiBearerAuth()
  @Authenticated()
  @ApiOperation({
    summary: "Keep the caller's session in this browser: the refresh token of the sign-in (of the access token's own session) goes into an HttpOnly cookie",
  })
  @ApiOkResponse({ type: HandOverBrowserSessionResponse })
  async handOver(
    @Param('sectorID') sectorID: string,
    @CurrentPrincipal() caller: Principal,
    @Body() body: HandOverBrowserSessionDto,
    @Res({ passthrough: true }) res: unknown,
  ): Promise<HandOverBrowserSessionResponse> {
    const session = await this.browserSessions.handOver(caller, sectorID, body.refreshToken);
    this.cookies.set(res, sectorID, body.refreshToken, session.usableUntil);
    return { expiresAt: unixSeconds(session.usableUntil) };
  }

  @Public()
  @Post(':sectorID/refresh')
  @HttpCode(200)
  @UseGuards(SameOriginGuard)
  @ApiHeader(CSRF_HEADER_DOC)
  @ApiOperation({ summary: "Renew the access token with this browser's session cookie (rotated like a refresh token; a reused one revokes the session)" })
  @ApiOkResponse({ type: BrowserSessionRefreshResponse })
  async refresh(
    @Param('sectorID') sectorID: string,
    @Req() req: IncomingRequest,
    @Res({ passthrough: true }) res: unknown,
    @ClientIp() ip: string,
  ): Promise<BrowserSessionRefreshResponse> {
    try {
      const { token, refreshToken, session } = await this.browserSessions.refresh(sectorID, this.cookies.read(req), ip);
      this.cookies.set(res, sectorID, refreshToken, session.usableUntil);
      return { token, expiresAt: unixSeconds(session.usableUntil) };
    } catch (error) {
      // A cookie that cannot renew the session is of no further use: the browser drops it.
      if (error instanceof DomainError && error.code === ErrorCode.UNAUTHENTICATED) this.cookies.clear(res, sectorID);
      throw error;
    }
  }

  @Public()
  @Delete(':sectorID')
  @UseGuards(SameOriginGuard)
  @ApiHeader(CSRF_HEADER_DOC)
  @ApiOperation({ summary: "Sign this browser out of the sector: ends the session its cookie names (as a logout does) and drops the cookie; fine without one" })
  @ApiOkResponse({ type: EndBrowserSessionResponse })
  async end(@Param('sectorID') sectorID: string, @Req() req: IncomingRequest, @Res({ passthrough: true }) res: unknown): Promise<EndBrowserSessionResponse> {
    await this.browserSessions.end(this.cookies.read(req));
    this.cookies.clear(res, sectorID);
    return {};
  }
}
