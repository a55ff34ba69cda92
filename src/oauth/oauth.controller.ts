import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Redirect, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiConsumes, ApiExtraModels, ApiFoundResponse, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Authenticated, ClientIp, CurrentPrincipal, Public } from '../access/decorators';
import { TargetScope, TargetUser, TargetUserRef } from '../settings/request-targets';
import type { Principal } from '../access/principal';
import { Role } from '../access/role-matrix';
import { AuthResultResponse } from '../auth/engine/auth.dto';
import { ApiErrors } from '../common/http/api-errors';
import { IncomingRequest, nodeRequest } from '../common/http/request';
import { SectorScope } from '../settings/sector-scope';
import { UserAccessQuery } from '../user/dto/user.dto';
import {
  LinkIdentityDto,
  LinkedIdentityIdResponse,
  ListLinkedIdentitiesResponse,
  OAuthCallbackQuery,
  OAuthInitiateDto,
  OAuthInitiateResponse,
  OAuthLinkResultResponse,
  OAuthProviderAdminConfig,
  OAuthProvidersResponse,
  OAuthProviderView,
  OAuthTokenDto,
  ProviderTestResponse,
  StatusResponse,
  TestOAuthProviderDto,
  UpdateOAuthProvidersDto,
} from './dto/oauth.dto';
import { IdentitiesService } from './identities.service';
import { ProviderConfigService } from './provider-config.service';
import { ProviderTester } from './provider-tester';
import { readCallbackForm, SocialLoginService } from './social-login.service';

/**
 * A sector's social-login providers (operation 9). A signed-in admin of the
 * sector or of the tenant's default sector; never an API token, since provider
 * secrets route credentials (docs/adr/0020-social-login.md).
 */
@ApiTags('Social login')
@ApiBearerAuth()
@ApiErrors()
@ApiExtraModels(OAuthProviderAdminConfig, OAuthProviderView)
@Controller('api/v1/sectors/:sectorID/oauth/providers')
export class OAuthProvidersController {
  constructor(
    private readonly config: ProviderConfigService,
    private readonly tester: ProviderTester,
  ) {}

  @Put()
  @HttpCode(200)
  @Authenticated({ role: Role.TOKEN_MANAGER, sectorFrom: 'param' })
  @ApiOperation({ summary: "Configure the sector's social-login providers (merge: absent providers and fields keep their values; empty secrets keep the stored ones)" })
  @ApiOkResponse({ type: StatusResponse })
  update(@TargetScope() scope: SectorScope, @Body() body: UpdateOAuthProvidersDto): Promise<StatusResponse> {
    return this.config.update(scope, body.providers);
  }

  @Post(':provider/test')
  @HttpCode(200)
  @Authenticated({ role: Role.TOKEN_MANAGER, sectorFrom: 'param' })
  @ApiOperation({
    summary:
      "Test a provider without signing anyone in: discovery, issuer, endpoints and key set (GitHub: its token endpoint and API), of the stored configuration or of an unsaved one merged over it; each check with what it found",
  })
  @ApiOkResponse({ type: ProviderTestResponse })
  test(@TargetScope() scope: SectorScope, @Param('provider') provider: string, @Body() body: TestOAuthProviderDto): Promise<ProviderTestResponse> {
    return this.tester.run(scope, provider, body.providers);
  }

  @Get()
  @Authenticated({ role: Role.TOKEN_MANAGER, sectorFrom: 'param' })
  @ApiOperation({ summary: "The sector's social-login providers (secrets replaced by whether one is set)" })
  @ApiOkResponse({ type: OAuthProvidersResponse })
  get(@TargetScope() scope: SectorScope): Promise<OAuthProvidersResponse> {
    return this.config.get(scope);
  }
}

/**
 * Social sign-in: initiate (operation 17), the provider's callback, and the
 * exchange of the callback's code (with the initiating browser's verifier) for
 * the result — of a sign-in, or of a link flow started from the account page.
 */
@ApiTags('Social login')
@ApiErrors()
@ApiExtraModels(AuthResultResponse, OAuthLinkResultResponse)
@Controller('api/v1/oauth')
export class OAuthLoginController {
  constructor(private readonly logins: SocialLoginService) {}

  @Public()
  @Post('token')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Exchange the code a social flow's return carried, with the verifier initiate answered to the same browser, for its result (once; within 2 minutes of completion): a sign-in result, or {linked, identity} for a link flow",
  })
  @ApiOkResponse({ schema: { oneOf: [{ $ref: getSchemaPath(AuthResultResponse) }, { $ref: getSchemaPath(OAuthLinkResultResponse) }] } })
  token(@Body() body: OAuthTokenDto): Promise<AuthResultResponse | OAuthLinkResultResponse> {
    return this.logins.token(body.code, body.verifier);
  }

  @Public()
  @Post(':provider/initiate')
  @HttpCode(200)
  @ApiOperation({ summary: "Start a social sign-in: the provider's authorization URL, the transaction, and the verifier the same browser collects the result with" })
  @ApiOkResponse({ type: OAuthInitiateResponse })
  initiate(@Param('provider') provider: string, @Body() body: OAuthInitiateDto, @ClientIp() ip: string): Promise<OAuthInitiateResponse> {
    return this.logins.initiate(provider, body, ip);
  }

  @Public()
  @Get(':provider/callback')
  @Redirect()
  @ApiOperation({
    summary: "The provider's redirect (registered as the provider's redirectURI): verifies the answer and sends the browser (302) back to the initiate redirectURI with a single-use code, or error=<reason>",
  })
  @ApiFoundResponse({ description: 'Location: <initiate redirectURI>?code=… (or ?error=<reason>).' })
  callback(@Param('provider') provider: string, @Query() query: OAuthCallbackQuery, @ClientIp() ip: string): Promise<{ url: string; statusCode: number }> {
    return this.logins.callback(provider, query, ip);
  }

  @Public()
  @Post(':provider/callback')
  @Redirect()
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiOperation({ summary: "The provider's redirect as a form post (Apple's response_mode=form_post): the same as the GET callback" })
  @ApiFoundResponse({ description: 'Location: <initiate redirectURI>?code=… (or ?error=<reason>).' })
  async callbackForm(@Param('provider') provider: string, @Req() req: IncomingRequest, @ClientIp() ip: string): Promise<{ url: string; statusCode: number }> {
    return this.logins.callback(provider, await readCallbackForm(nodeRequest(req)), ip);
  }
}

const OWNER_OR_ADMIN = { role: Role.USER_CREDENTIALS, sectorFrom: 'userParam' } as const;

/** A user's linked social identities: the user or a signed-in admin over them, never an API token. */
@ApiTags('Social login')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/users/:sub/identities')
export class LinkedIdentitiesController {
  constructor(
    private readonly identities: IdentitiesService,
    private readonly logins: SocialLoginService,
  ) {}

  @Post(':provider/link')
  @HttpCode(200)
  @Authenticated(OWNER_OR_ADMIN)
  @ApiOperation({
    summary:
      "Link a provider to the caller's own account (a recent sign-in or currentPassword): the provider's authorization URL, the flow, and the verifier; the return's code is exchanged at POST /api/v1/oauth/token for {linked, identity}",
  })
  @ApiOkResponse({ type: OAuthInitiateResponse })
  link(
    @CurrentPrincipal() caller: Principal,
    @TargetUser() target: TargetUserRef,
    @Param('provider') provider: string,
    @Body() body: LinkIdentityDto,
    @ClientIp() ip: string,
  ): Promise<OAuthInitiateResponse> {
    return this.logins.startLink(caller, target, provider, body, ip);
  }

  @Get()
  @Authenticated(OWNER_OR_ADMIN)
  @ApiOperation({ summary: "The user's linked social identities" })
  @ApiOkResponse({ type: ListLinkedIdentitiesResponse })
  list(@TargetUser() target: TargetUserRef, @Query() _q: UserAccessQuery): Promise<ListLinkedIdentitiesResponse> {
    return this.identities.list(target);
  }

  @Delete(':id')
  @Authenticated(OWNER_OR_ADMIN)
  @ApiOperation({ summary: 'Unlink a social identity (not the last way the user can sign in)' })
  @ApiOkResponse({ type: LinkedIdentityIdResponse })
  remove(@TargetUser() target: TargetUserRef, @Param('id') id: string, @Query() _q: UserAccessQuery): Promise<LinkedIdentityIdResponse> {
    return this.identities.remove(target, id);
  }
}
