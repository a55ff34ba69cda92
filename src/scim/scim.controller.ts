import { Body, Controller, Delete, Get, Header, Headers, HttpCode, Param, Patch, Post, Put, Query, Res, UseFilters, UseGuards } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiExcludeController } from '@nestjs/swagger';
import { Authenticated } from '../access/decorators';
import { Role } from '../access/role-matrix';
import { TargetScope } from '../settings/request-targets';
import { SectorScope } from '../settings/sector-scope';
import { resourceTypes, schemas, serviceProviderConfig } from './scim-discovery';
import { SCIM_CONTENT_TYPE, ScimError, ScimExceptionFilter } from './scim-error';
import { ScimListQuery } from './scim-resources';
import { ScimGroupService } from './scim-group.service';
import { ScimThrottleGuard } from './scim-throttle.guard';
import { LIST_SCHEMA, ScimUserService, ScimWritten } from './scim-user.service';

const SCIM_CLIENT = { role: Role.SCIM_CLIENT, sectorFrom: 'param' } as const;

/**
 * A sector's SCIM 2.0 service provider (RFC 7644) at `/scim/v2/{sectorID}`: for an
 * API token of that sector only, answering `application/scim+json` and SCIM's own
 * error body. Documented in docs/api.md (Provision users), not in the OpenAPI
 * document: SCIM has its own discovery (`/ServiceProviderConfig`, `/Schemas`).
 */
@ApiExcludeController()
@UseFilters(ScimExceptionFilter)
@UseGuards(ScimThrottleGuard)
@Controller('scim/v2/:sectorID')
export class ScimController {
  constructor(
    private readonly users: ScimUserService,
    private readonly groups: ScimGroupService,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Get('ServiceProviderConfig')
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  serviceProviderConfig(@TargetScope() scope: SectorScope): Record<string, unknown> {
    return serviceProviderConfig(this.users.base(scope));
  }

  @Get('ResourceTypes')
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  resourceTypes(@TargetScope() scope: SectorScope): Record<string, unknown> {
    return listOf(resourceTypes(this.users.base(scope)));
  }

  @Get('ResourceTypes/:name')
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  resourceType(@TargetScope() scope: SectorScope, @Param('name') name: string): Record<string, unknown> {
    return oneOf(resourceTypes(this.users.base(scope)), name, 'resource type');
  }

  @Get('Schemas')
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  schemas(@TargetScope() scope: SectorScope): Record<string, unknown> {
    return listOf(schemas(this.users.base(scope)));
  }

  @Get('Schemas/:id')
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  schema(@TargetScope() scope: SectorScope, @Param('id') id: string): Record<string, unknown> {
    return oneOf(schemas(this.users.base(scope)), id, 'schema');
  }

  @Get('Users')
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  listUsers(@TargetScope() scope: SectorScope, @Query() query: ScimListQuery): Promise<Record<string, unknown>> {
    return this.users.list(scope, query);
  }

  @Get('Users/:id')
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  async getUser(@TargetScope() scope: SectorScope, @Param('id') id: string, @Query() query: ScimListQuery, @Res({ passthrough: true }) res: unknown): Promise<Record<string, unknown>> {
    return this.answer(res, await this.users.get(scope, id, query));
  }

  @Post('Users')
  @HttpCode(201)
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  async createUser(@TargetScope() scope: SectorScope, @Body() body: unknown, @Res({ passthrough: true }) res: unknown): Promise<Record<string, unknown>> {
    const written = await this.users.create(scope, body);
    this.adapterHost.httpAdapter.setHeader(res, 'Location', written.location);
    return this.answer(res, written);
  }

  @Put('Users/:id')
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  async replaceUser(
    @TargetScope() scope: SectorScope,
    @Param('id') id: string,
    @Body() body: unknown,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) res: unknown,
  ): Promise<Record<string, unknown>> {
    return this.answer(res, await this.users.replace(scope, id, body, ifMatch));
  }

  @Patch('Users/:id')
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  async patchUser(
    @TargetScope() scope: SectorScope,
    @Param('id') id: string,
    @Body() body: unknown,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) res: unknown,
  ): Promise<Record<string, unknown>> {
    return this.answer(res, await this.users.patch(scope, id, body, ifMatch));
  }

  @Delete('Users/:id')
  @HttpCode(204)
  @Authenticated(SCIM_CLIENT)
  async deleteUser(@TargetScope() scope: SectorScope, @Param('id') id: string, @Headers('if-match') ifMatch: string | undefined): Promise<void> {
    await this.users.delete(scope, id, ifMatch);
  }

  @Get('Groups')
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  listGroups(@TargetScope() scope: SectorScope, @Query() query: ScimListQuery): Promise<Record<string, unknown>> {
    return this.groups.list(scope, query);
  }

  @Get('Groups/:id')
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  async getGroup(@TargetScope() scope: SectorScope, @Param('id') id: string, @Query() query: ScimListQuery, @Res({ passthrough: true }) res: unknown): Promise<Record<string, unknown>> {
    return this.answer(res, await this.groups.get(scope, id, query));
  }

  @Post('Groups')
  @HttpCode(201)
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  async createGroup(@TargetScope() scope: SectorScope, @Body() body: unknown, @Res({ passthrough: true }) res: unknown): Promise<Record<string, unknown>> {
    const written = await this.groups.create(scope, body);
    this.adapterHost.httpAdapter.setHeader(res, 'Location', written.location);
    return this.answer(res, written);
  }

  @Put('Groups/:id')
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  async replaceGroup(
    @TargetScope() scope: SectorScope,
    @Param('id') id: string,
    @Body() body: unknown,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) res: unknown,
  ): Promise<Record<string, unknown>> {
    return this.answer(res, await this.groups.replace(scope, id, body, ifMatch));
  }

  @Patch('Groups/:id')
  @Authenticated(SCIM_CLIENT)
  @Header('Content-Type', SCIM_CONTENT_TYPE)
  async patchGroup(
    @TargetScope() scope: SectorScope,
    @Param('id') id: string,
    @Body() body: unknown,
    @Headers('if-match') ifMatch: string | undefined,
    @Res({ passthrough: true }) res: unknown,
  ): Promise<Record<string, unknown>> {
    return this.answer(res, await this.groups.patch(scope, id, body, ifMatch));
  }

  @Delete('Groups/:id')
  @HttpCode(204)
  @Authenticated(SCIM_CLIENT)
  async deleteGroup(@TargetScope() scope: SectorScope, @Param('id') id: string, @Headers('if-match') ifMatch: string | undefined): Promise<void> {
    await this.groups.delete(scope, id, ifMatch);
  }

  /** The resource, with its version as the ETag header. */
  private answer(res: unknown, written: ScimWritten): Record<string, unknown> {
    this.adapterHost.httpAdapter.setHeader(res, 'ETag', written.version);
    return written.resource;
  }
}

function listOf(resources: Array<Record<string, unknown>>): Record<string, unknown> {
  return { schemas: [LIST_SCHEMA], totalResults: resources.length, itemsPerPage: resources.length, startIndex: 1, Resources: resources };
}

function oneOf(resources: Array<Record<string, unknown>>, id: string, what: string): Record<string, unknown> {
  const found = resources.find((r) => String(r.id).toLowerCase() === id.toLowerCase());
  if (!found) throw new ScimError(404, `No such ${what}.`);
  return found;
}
