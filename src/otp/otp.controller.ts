import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, ClientIp, CurrentPrincipal } from '../access/decorators';
import { TargetUser, TargetUserRef } from '../settings/request-targets';
import type { Principal } from '../access/principal';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { UserAccessQuery } from '../user/dto/user.dto';
import {
  CreateOtpRegistrationDto,
  CreateOtpRegistrationResponse,
  ListOtpRegistrationsResponse,
  OtpRegistrationIdResponse,
  VerifyOtpRegistrationDto,
} from './dto/otp.dto';
import { OtpService } from './otp.service';

/** Reading the list also accepts the user's `?transactionID=` proof; adding, verifying or removing a factor never does. */
const OWNER_OR_ADMIN_READ = { role: Role.USER_CREDENTIALS, sectorFrom: 'userParam', transactionProof: true } as const;
const OWNER_OR_ADMIN = { role: Role.USER_CREDENTIALS, sectorFrom: 'userParam' } as const;

@ApiTags('OTP registrations')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/users/:sub/otp-registrations')
export class OtpController {
  constructor(private readonly otp: OtpService) {}

  @Get()
  @Authenticated(OWNER_OR_ADMIN_READ)
  @ApiOperation({ summary: "The user's one-time-code factors (destinations masked)" })
  @ApiOkResponse({ type: ListOtpRegistrationsResponse })
  list(@TargetUser() target: TargetUserRef, @Query() _q: UserAccessQuery): Promise<ListOtpRegistrationsResponse> {
    return this.otp.list(target);
  }

  @Post()
  @HttpCode(200)
  @Authenticated(OWNER_OR_ADMIN)
  @ApiOperation({
    summary:
      'Add a factor: email/sms get a code to confirm; totp returns its secret and otpauth URL once. Users adding their own need a sign-in of the last five minutes or currentPassword (REAUTHENTICATION_REQUIRED)',
  })
  @ApiOkResponse({ type: CreateOtpRegistrationResponse })
  create(
    @CurrentPrincipal() caller: Principal,
    @TargetUser() target: TargetUserRef,
    @Body() body: CreateOtpRegistrationDto,
    @Query() _q: UserAccessQuery,
    @ClientIp() ip: string,
  ): Promise<CreateOtpRegistrationResponse> {
    return this.otp.create(caller, target, body, ip);
  }

  @Post(':registrationID/verify')
  @HttpCode(200)
  @Authenticated(OWNER_OR_ADMIN)
  @ApiOperation({ summary: 'Confirm a new factor with its first code' })
  @ApiOkResponse({ type: OtpRegistrationIdResponse })
  verify(
    @TargetUser() target: TargetUserRef,
    @Param('registrationID') id: string,
    @Body() body: VerifyOtpRegistrationDto,
    @Query() _q: UserAccessQuery,
  ): Promise<OtpRegistrationIdResponse> {
    return this.otp.verify(target, id, body.code);
  }

  @Delete(':registrationID')
  @Authenticated(OWNER_OR_ADMIN)
  @ApiOperation({ summary: 'Remove a factor. Users removing their own need a sign-in of the last five minutes (REAUTHENTICATION_REQUIRED; re-authenticate first)' })
  @ApiOkResponse({ type: OtpRegistrationIdResponse })
  remove(
    @CurrentPrincipal() caller: Principal,
    @TargetUser() target: TargetUserRef,
    @Param('registrationID') id: string,
    @Query() _q: UserAccessQuery,
    @ClientIp() ip: string,
  ): Promise<OtpRegistrationIdResponse> {
    return this.otp.remove(caller, target, id, ip);
  }
}
