import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../access/decorators';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { TargetScope, TargetUser, TargetUserRef } from '../settings/request-targets';
import { SectorScope } from '../settings/sector-scope';
import { DeleteRoleResponse, ListRolesResponse, PutRoleDto, RoleResponse, SetUserRolesDto, UserRolesResponse } from './dto/role.dto';
import { RoleService } from './role.service';

@ApiTags('Roles')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1')
export class RoleController {
  constructor(private readonly roles: RoleService) {}

  @Get('sectors/:sectorID/roles')
  @Authenticated({ role: Role.SECTOR_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: "List the sector's roles (admins of the sector or the default sector, the sector's API tokens)" })
  @ApiOkResponse({ type: ListRolesResponse })
  list(@TargetScope() scope: SectorScope): Promise<ListRolesResponse> {
    return this.roles.list(scope);
  }

  @Put('sectors/:sectorID/roles/:name')
  @HttpCode(200)
  @Authenticated({ role: Role.ROLE_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Create a role or replace its description and permissions (admins of the sector or the default sector)' })
  @ApiOkResponse({ type: RoleResponse })
  put(@TargetScope() scope: SectorScope, @Param('name') name: string, @Body() body: PutRoleDto): Promise<RoleResponse> {
    return this.roles.put(scope, name, body);
  }

  @Delete('sectors/:sectorID/roles/:name')
  @Authenticated({ role: Role.ROLE_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Delete a role; every user who held it loses it at once' })
  @ApiOkResponse({ type: DeleteRoleResponse })
  delete(@TargetScope() scope: SectorScope, @Param('name') name: string): Promise<DeleteRoleResponse> {
    return this.roles.delete(scope, name);
  }

  @Get('users/:sub/roles')
  @Authenticated({ role: Role.USER_ROLE_READER, sectorFrom: 'userParam' })
  @ApiOperation({ summary: "A user's roles and the union of their permissions (admins over the user's sector, the user themselves)" })
  @ApiOkResponse({ type: UserRolesResponse })
  userRoles(@TargetUser() target: TargetUserRef): Promise<UserRolesResponse> {
    return this.roles.userRoles(target);
  }

  @Put('users/:sub/roles')
  @HttpCode(200)
  @Authenticated({ role: Role.USER_ROLE_ASSIGNER, sectorFrom: 'userParam' })
  @ApiOperation({ summary: "Set a user's roles (admins over the user's sector; the sector's API tokens for users who are not admins; never the user themselves)" })
  @ApiOkResponse({ type: UserRolesResponse })
  setUserRoles(@TargetUser() target: TargetUserRef, @Body() body: SetUserRolesDto): Promise<UserRolesResponse> {
    return this.roles.setUserRoles(target, body.roles);
  }
}
