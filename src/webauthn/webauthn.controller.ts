import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, ClientIp, CurrentPrincipal, Public } from '../access/decorators';
import { TargetUser, TargetUserRef } from '../settings/request-targets';
import type { Principal } from '../access/principal';
import { Role } from '../access/role-matrix';
import { AuthResultResponse } from '../auth/engine/auth.dto';
import { ApiErrors } from '../common/http/api-errors';
import { UserAccessQuery } from '../user/dto/user.dto';
import {
  ListWebAuthnCredentialsResponse,
  RenameWebAuthnCredentialDto,
  WebAuthnCredentialIdResponse,
  WebAuthnCredentialResponse,
  WebAuthnLoginBeginDto,
  WebAuthnLoginBeginResponse,
  WebAuthnLoginFinishDto,
  WebAuthnRegistrationBeginDto,
  WebAuthnRegistrationBeginResponse,
  WebAuthnRegistrationFinishDto,
  WebAuthnRegistrationFinishResponse,
} from './dto/webauthn.dto';
import { WebAuthnCredentialsService } from './webauthn-credentials.service';
import { WebAuthnLoginService } from './webauthn-login.service';
import { WebAuthnRegistrationService } from './webauthn-registration.service';

/** Passkey sign-in (operations 14 and 15). */
@ApiTags('Login')
@ApiErrors()
@Controller('api/v1/login/webauthn')
export class WebAuthnLoginController {
  constructor(private readonly logins: WebAuthnLoginService) {}

  @Public()
  @Post('begin')
  @HttpCode(200)
  @ApiOperation({ summary: 'Begin a passkey sign-in: request options for a login, for a transaction (second factor), or usernameless' })
  @ApiOkResponse({ type: WebAuthnLoginBeginResponse })
  begin(@Body() body: WebAuthnLoginBeginDto, @ClientIp() ip: string): Promise<WebAuthnLoginBeginResponse> {
    return this.logins.begin(body, ip);
  }

  @Public()
  @Post('finish')
  @HttpCode(200)
  @ApiOperation({ summary: 'Finish a passkey sign-in: verifies the assertion and continues the transaction' })
  @ApiOkResponse({ type: AuthResultResponse })
  finish(@Body() body: WebAuthnLoginFinishDto, @ClientIp() ip: string): Promise<AuthResultResponse> {
    return this.logins.finish(body, ip);
  }
}

/** Passkey registration for the signed-in user (operations 18 and 19). */
@ApiTags('Passkeys')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/webauthn/registration')
export class WebAuthnRegistrationController {
  constructor(private readonly registrations: WebAuthnRegistrationService) {}

  @Post('begin')
  @HttpCode(200)
  @Authenticated({ role: Role.AUTHENTICATED })
  @ApiOperation({
    summary:
      "Begin registering a passkey for the signed-in user (a user's access token; not an API token). Needs a sign-in of the last five minutes or currentPassword (REAUTHENTICATION_REQUIRED)",
  })
  @ApiOkResponse({ type: WebAuthnRegistrationBeginResponse })
  begin(
    @CurrentPrincipal() principal: Principal,
    @Body() body: WebAuthnRegistrationBeginDto,
    @ClientIp() ip: string,
  ): Promise<WebAuthnRegistrationBeginResponse> {
    return this.registrations.begin(principal, body, ip);
  }

  @Post('finish')
  @HttpCode(200)
  @Authenticated({ role: Role.AUTHENTICATED })
  @ApiOperation({ summary: "Finish registering a passkey: verifies the browser's attestation and stores the credential" })
  @ApiOkResponse({ type: WebAuthnRegistrationFinishResponse })
  finish(@CurrentPrincipal() principal: Principal, @Body() body: WebAuthnRegistrationFinishDto): Promise<WebAuthnRegistrationFinishResponse> {
    return this.registrations.finish(principal, body);
  }
}

/** Reading the list also accepts the user's `?transactionID=` proof; changing a passkey never does. */
const OWNER_OR_ADMIN_READ = { role: Role.USER_CREDENTIALS, sectorFrom: 'userParam', transactionProof: true } as const;
const OWNER_OR_ADMIN = { role: Role.USER_CREDENTIALS, sectorFrom: 'userParam' } as const;

/** A user's passkeys: the user or a signed-in admin over them, never an API token. */
@ApiTags('Passkeys')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/users/:sub/webauthn-credentials')
export class WebAuthnCredentialsController {
  constructor(private readonly credentials: WebAuthnCredentialsService) {}

  @Get()
  @Authenticated(OWNER_OR_ADMIN_READ)
  @ApiOperation({ summary: "The user's passkeys" })
  @ApiOkResponse({ type: ListWebAuthnCredentialsResponse })
  list(@TargetUser() target: TargetUserRef, @Query() _q: UserAccessQuery): Promise<ListWebAuthnCredentialsResponse> {
    return this.credentials.list(target);
  }

  @Patch(':id')
  @Authenticated(OWNER_OR_ADMIN)
  @ApiOperation({ summary: 'Rename a passkey' })
  @ApiOkResponse({ type: WebAuthnCredentialResponse })
  rename(
    @TargetUser() target: TargetUserRef,
    @Param('id') id: string,
    @Body() body: RenameWebAuthnCredentialDto,
    @Query() _q: UserAccessQuery,
  ): Promise<WebAuthnCredentialResponse> {
    return this.credentials.rename(target, id, body.keyName);
  }

  @Delete(':id')
  @Authenticated(OWNER_OR_ADMIN)
  @ApiOperation({
    summary:
      'Remove a passkey (not the last factor of a user in a sector that requires MFA). Users removing their own need a sign-in of the last five minutes (REAUTHENTICATION_REQUIRED; re-authenticate first)',
  })
  @ApiOkResponse({ type: WebAuthnCredentialIdResponse })
  remove(
    @CurrentPrincipal() caller: Principal,
    @TargetUser() target: TargetUserRef,
    @Param('id') id: string,
    @Query() _q: UserAccessQuery,
    @ClientIp() ip: string,
  ): Promise<WebAuthnCredentialIdResponse> {
    return this.credentials.remove(caller, target, id, ip);
  }

  @Post(':id/clear-flag')
  @HttpCode(200)
  @Authenticated({ role: Role.USER_FACTOR_ADMIN, sectorFrom: 'userParam' })
  @ApiOperation({ summary: 'Clear the flag of a passkey flagged as possibly cloned, so it signs in again (a signed-in admin over the user; not the user, not an API token)' })
  @ApiOkResponse({ type: WebAuthnCredentialResponse })
  clearFlag(@TargetUser() target: TargetUserRef, @Param('id') id: string, @Query() _q: UserAccessQuery): Promise<WebAuthnCredentialResponse> {
    return this.credentials.clearFlag(target, id);
  }
}
