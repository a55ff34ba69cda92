import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, ClientIp, CurrentPrincipal, Public } from '../access/decorators';
import { TargetUser, TargetUserRef } from '../settings/request-targets';
import { Principal } from '../access/principal';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import {
  ListSessionsResponse,
  LogoutResponse,
  ReauthenticateDto,
  ReauthenticateResponse,
  RefreshTokenDto,
  RefreshTokenResponse,
  RevokeSessionResponse,
} from './dto/session.dto';
import { SessionService } from './session.service';

@ApiTags('Sessions')
@ApiErrors()
@Controller('api/v1')
export class SessionController {
  constructor(private readonly sessions: SessionService) {}

  @Public()
  @Post('token/refresh')
  @HttpCode(200)
  @ApiOperation({ summary: 'Trade a refresh token for a new access token and the next refresh token (a reused one revokes the session)' })
  @ApiOkResponse({ type: RefreshTokenResponse })
  refresh(@Body() body: RefreshTokenDto, @ClientIp() ip: string): Promise<RefreshTokenResponse> {
    return this.sessions.refresh(body.refreshToken, ip);
  }

  @Post('logout')
  @HttpCode(200)
  @ApiBearerAuth()
  @Authenticated()
  @ApiOperation({ summary: "End the caller's session: its access and refresh tokens stop working at once" })
  @ApiOkResponse({ type: LogoutResponse })
  logout(@CurrentPrincipal() caller: Principal): Promise<Record<string, never>> {
    return this.sessions.logout(caller);
  }

  @Post('users/:sub/reauthenticate')
  @HttpCode(200)
  @ApiBearerAuth()
  @Authenticated({ role: Role.USER_CREDENTIALS, sectorFrom: 'userParam' })
  @ApiOperation({
    summary: 'Step-up: prove the current password again and get an access token of the same session with a fresh auth_time (the user themselves, by access token)',
  })
  @ApiOkResponse({ type: ReauthenticateResponse })
  reauthenticate(
    @CurrentPrincipal() caller: Principal,
    @TargetUser() target: TargetUserRef,
    @Body() body: ReauthenticateDto,
    @ClientIp() ip: string,
  ): Promise<ReauthenticateResponse> {
    return this.sessions.reauthenticate(caller, target, body.currentPassword, ip);
  }

  @Get('users/:sub/sessions')
  @ApiBearerAuth()
  @Authenticated({ role: Role.USER_CREDENTIALS, sectorFrom: 'userParam' })
  @ApiOperation({ summary: "List a user's active sessions (the user, or a signed-in admin over the user's sector)" })
  @ApiOkResponse({ type: ListSessionsResponse })
  list(@TargetUser() target: TargetUserRef, @CurrentPrincipal() caller: Principal): Promise<ListSessionsResponse> {
    return this.sessions.list(target.scope.db, target.id, caller);
  }

  @Delete('users/:sub/sessions/:id')
  @ApiBearerAuth()
  @Authenticated({ role: Role.USER_CREDENTIALS, sectorFrom: 'userParam' })
  @ApiOperation({ summary: "Revoke one of a user's sessions: its access and refresh tokens stop working at once" })
  @ApiOkResponse({ type: RevokeSessionResponse })
  revoke(@TargetUser() target: TargetUserRef, @Param('id') id: string): Promise<RevokeSessionResponse> {
    return this.sessions.revoke(target.scope.db, target.id, id);
  }
}
