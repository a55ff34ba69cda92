import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../access/decorators';
import { Principal } from '../access/principal';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { TargetScope } from '../settings/request-targets';
import { SectorScope } from '../settings/sector-scope';
import {
  CreateOidcClientResponse,
  DeleteOidcClientResponse,
  ListOidcClientsResponse,
  OidcClientInput,
  OidcClientResponse,
  RotateOidcClientSecretResponse,
} from './dto/oidc-client.dto';
import { OidcClientService } from './oidc-client.service';

/** The apps of a sector's OpenID Provider, for its admins (the same apps RFC 7591 registration makes). */
@ApiTags('OpenID Provider')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/sectors/:sectorID/oidc/clients')
export class OidcClientController {
  constructor(private readonly clients: OidcClientService) {}

  @Get()
  @Authenticated({ role: Role.SECTOR_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'List the apps registered with the sector’s OpenID Provider (never their secrets)' })
  @ApiOkResponse({ type: ListOidcClientsResponse })
  list(@TargetScope() scope: SectorScope): Promise<ListOidcClientsResponse> {
    return this.clients.list(scope);
  }

  @Post()
  @HttpCode(200)
  @Authenticated({ role: Role.SECTOR_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Register a first-party app (its client secret is shown only here)' })
  @ApiOkResponse({ type: CreateOidcClientResponse })
  create(@TargetScope() scope: SectorScope, @CurrentPrincipal() caller: Principal, @Body() body: OidcClientInput): Promise<CreateOidcClientResponse> {
    return this.clients.create(scope, caller, body);
  }

  @Get(':clientID')
  @Authenticated({ role: Role.SECTOR_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Read an app' })
  @ApiOkResponse({ type: OidcClientResponse })
  get(@TargetScope() scope: SectorScope, @Param('clientID') clientId: string): Promise<OidcClientResponse> {
    return this.clients.get(scope, clientId);
  }

  @Put(':clientID')
  @HttpCode(200)
  @Authenticated({ role: Role.SECTOR_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Replace an app’s settings (name, redirect URIs, grants, authentication, logout URIs)' })
  @ApiOkResponse({ type: OidcClientResponse })
  update(@TargetScope() scope: SectorScope, @Param('clientID') clientId: string, @Body() body: OidcClientInput): Promise<OidcClientResponse> {
    return this.clients.update(scope, clientId, body);
  }

  @Post(':clientID/rotate-secret')
  @HttpCode(200)
  @Authenticated({ role: Role.SECTOR_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Give an app a new client secret (shown only here); the old one stops working at once' })
  @ApiOkResponse({ type: RotateOidcClientSecretResponse })
  rotateSecret(@TargetScope() scope: SectorScope, @Param('clientID') clientId: string): Promise<RotateOidcClientSecretResponse> {
    return this.clients.rotateSecret(scope, clientId);
  }

  @Delete(':clientID')
  @Authenticated({ role: Role.SECTOR_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Delete an app: its tokens, codes and grants go with it' })
  @ApiOkResponse({ type: DeleteOidcClientResponse })
  remove(@TargetScope() scope: SectorScope, @Param('clientID') clientId: string): Promise<Record<string, never>> {
    return this.clients.remove(scope, clientId);
  }
}
