import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../access/decorators';
import { TargetScope } from '../settings/request-targets';
import { Principal } from '../access/principal';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { SectorScope } from '../settings/sector-scope';
import { ApiTokenService } from './api-token.service';
import { CreateApiTokenDto, CreateApiTokenResponse, ListApiTokensResponse, RevokeApiTokenResponse } from './dto/api-token.dto';

@ApiTags('API tokens')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/sectors/:sectorID/tokens')
export class ApiTokenController {
  constructor(private readonly tokens: ApiTokenService) {}

  @Post()
  @HttpCode(200)
  @Authenticated({ role: Role.TOKEN_MANAGER, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Create a sector API token (the plaintext is returned only here)' })
  @ApiOkResponse({ type: CreateApiTokenResponse })
  create(@TargetScope() scope: SectorScope, @CurrentPrincipal() caller: Principal, @Body() body: CreateApiTokenDto): Promise<CreateApiTokenResponse> {
    return this.tokens.create(scope, caller, body.name);
  }

  @Get()
  @Authenticated({ role: Role.TOKEN_MANAGER, sectorFrom: 'param' })
  @ApiOperation({ summary: "List the sector's API tokens (metadata only)" })
  @ApiOkResponse({ type: ListApiTokensResponse })
  list(@TargetScope() scope: SectorScope): Promise<ListApiTokensResponse> {
    return this.tokens.list(scope);
  }

  @Delete(':id')
  @Authenticated({ role: Role.TOKEN_MANAGER, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Revoke an API token; it stops working at once' })
  @ApiOkResponse({ type: RevokeApiTokenResponse })
  revoke(@TargetScope() scope: SectorScope, @Param('id') id: string): Promise<RevokeApiTokenResponse> {
    return this.tokens.revoke(scope, id);
  }
}
