import { Controller, Delete, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../access/decorators';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { TargetUser, TargetUserRef } from '../settings/request-targets';
import { ListOidcGrantsResponse, RevokeOidcGrantResponse } from './dto/oidc-grant.dto';
import { OidcGrantService } from './oidc-grant.service';

/** The apps a user let in through the OpenID Provider (the account page's list), and revoking that access. */
@ApiTags('OpenID Provider')
@ApiErrors()
@Controller('api/v1/users/:sub/oidc/grants')
export class OidcGrantController {
  constructor(private readonly grants: OidcGrantService) {}

  @Get()
  @ApiBearerAuth()
  @Authenticated({ role: Role.USER_CREDENTIALS, sectorFrom: 'userParam' })
  @ApiOperation({ summary: 'List the apps a user has granted access (the user, or a signed-in admin over the user’s sector)' })
  @ApiOkResponse({ type: ListOidcGrantsResponse })
  list(@TargetUser() target: TargetUserRef): Promise<ListOidcGrantsResponse> {
    return this.grants.list(target);
  }

  @Delete(':clientID')
  @ApiBearerAuth()
  @Authenticated({ role: Role.USER_CREDENTIALS, sectorFrom: 'userParam' })
  @ApiOperation({ summary: 'Revoke an app’s access: its tokens for the user stop working at once, and a third-party app asks for consent again' })
  @ApiOkResponse({ type: RevokeOidcGrantResponse })
  revoke(@TargetUser() target: TargetUserRef, @Param('clientID') clientId: string): Promise<RevokeOidcGrantResponse> {
    return this.grants.revoke(target, clientId);
  }
}
