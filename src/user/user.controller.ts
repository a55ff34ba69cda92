import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, ClientIp, CurrentPrincipal } from '../access/decorators';
import { TargetScope, TargetUser, TargetUserRef } from '../settings/request-targets';
import { Principal } from '../access/principal';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { SectorScope } from '../settings/sector-scope';
import {
  ChangePasswordDto,
  CreateUserDto,
  UserRefResponse,
  ListUsersQuery,
  ListUsersResponse,
  ResendInviteResponse,
  UpdateUserDto,
  UpdateUserResponse,
  UserAccessQuery,
  UserProfileResponse,
} from './dto/user.dto';
import { UserService } from './user.service';

@ApiTags('Users')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1')
export class UserController {
  constructor(private readonly users: UserService) {}

  @Post('sectors/:sectorID/users')
  @HttpCode(200)
  @Authenticated({ role: Role.USER_CREATOR, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Create a user; without a password the user is invited by mail' })
  @ApiOkResponse({ type: UserProfileResponse })
  create(@TargetScope() scope: SectorScope, @CurrentPrincipal() caller: Principal, @Body() body: CreateUserDto): Promise<UserProfileResponse> {
    return this.users.create(scope, caller, body);
  }

  @Get('sectors/:sectorID/users')
  @Authenticated({ role: Role.USER_LISTER, sectorFrom: 'param' })
  @ApiOperation({ summary: "List a sector's users (paging, search, filters, sorting)" })
  @ApiOkResponse({ type: ListUsersResponse })
  list(@TargetScope() scope: SectorScope, @Query() query: ListUsersQuery): Promise<ListUsersResponse> {
    return this.users.list(scope, query);
  }

  @Get('users/:sub')
  @Authenticated({ role: Role.USER_READER, sectorFrom: 'userParam', transactionProof: true })
  @ApiOperation({ summary: 'Get a user (admins, the user by token or by a recent transactionID, sector members when allowed)' })
  @ApiOkResponse({ type: UserProfileResponse })
  get(@TargetUser() target: TargetUserRef, @Query() _query: UserAccessQuery): Promise<UserProfileResponse> {
    return this.users.get(target);
  }

  @Put('users/:sub')
  @HttpCode(200)
  @Authenticated({ role: Role.USER_EDITOR, sectorFrom: 'userParam', transactionProof: true })
  @ApiOperation({ summary: 'Update a user (admins, or the user by token or by a recent transactionID; email and phone need a recent sign-in, and a new own email waits for its link)' })
  @ApiOkResponse({ type: UpdateUserResponse })
  update(
    @CurrentPrincipal() caller: Principal,
    @TargetUser() target: TargetUserRef,
    @Body() body: UpdateUserDto,
    @Query() _query: UserAccessQuery,
    @ClientIp() ip: string,
  ): Promise<UpdateUserResponse> {
    return this.users.update(caller, target, body, ip);
  }

  @Post('users/:sub/password')
  @HttpCode(200)
  @Authenticated({ role: Role.USER_CREDENTIALS, sectorFrom: 'userParam' })
  @ApiOperation({ summary: 'Change a password (the user, with the current password; or an admin)' })
  @ApiOkResponse({ type: UserRefResponse })
  changePassword(
    @CurrentPrincipal() caller: Principal,
    @TargetUser() target: TargetUserRef,
    @Body() body: ChangePasswordDto,
    @ClientIp() ip: string,
  ): Promise<UserRefResponse> {
    return this.users.changePassword(caller, target, body, ip);
  }

  @Delete('users/:sub')
  @Authenticated({ role: Role.USER_ADMIN, sectorFrom: 'userParam' })
  @ApiOperation({ summary: 'Delete a user; their tokens stop working at once' })
  @ApiOkResponse({ type: UserRefResponse })
  delete(@TargetUser() target: TargetUserRef): Promise<UserRefResponse> {
    return this.users.delete(target);
  }

  @Post('users/:sub/invite')
  @HttpCode(200)
  @Authenticated({ role: Role.USER_ADMIN, sectorFrom: 'userParam' })
  @ApiOperation({ summary: 'Resend the invitation of a user who has not set a password yet (the old link stops working)' })
  @ApiOkResponse({ type: ResendInviteResponse })
  resendInvite(@TargetUser() target: TargetUserRef): Promise<ResendInviteResponse> {
    return this.users.resendInvite(target);
  }
}
