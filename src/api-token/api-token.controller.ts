import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal, TargetSector } from '../access/decorators';
import { Principal } from '../access/principal';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { SectorRoute } from '../tenancy/tenant-directory';
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
  create(@TargetSector() sector: SectorRoute, @CurrentPrincipal() caller: Principal, @Body() body: CreateApiTokenDto): Promise<CreateApiTokenResponse> {
    return this.tokens.create(sector, caller, body.name);
  }

  @Get()
  @Authenticated({ role: Role.TOKEN_MANAGER, sectorFrom: 'param' })
  @ApiOperation({ summary: "List the sector's API tokens (metadata only)" })
  @ApiOkResponse({ type: ListApiTokensResponse })
  list(@TargetSector() sector: SectorRoute): Promise<ListApiTokensResponse> {
    return this.tokens.list(sector);
  }

  @Delete(':id')
  @Authenticated({ role: Role.TOKEN_MANAGER, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Revoke an API token; it stops working at once' })
  @ApiOkResponse({ type: RevokeApiTokenResponse })
  revoke(@TargetSector() sector: SectorRoute, @Param('id') id: string): Promise<RevokeApiTokenResponse> {
    return this.tokens.revoke(sector, id);
  }
}
