import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ClientIp, Public } from '../access/decorators';
import { ApiErrors } from '../common/http/api-errors';
import {
  AcceptInviteDto,
  AuthResultResponse,
  OtpBeginDto,
  OtpBeginResponse,
  OtpLoginDto,
  PasswordLoginDto,
  SignupDto,
  SignupMfaBeginDto,
  SignupMfaVerifyDto,
  SignupMfaVerifyResponse,
} from './engine/auth.dto';
import { InvitationService } from './invitation.service';
import { LoginService } from './login.service';
import { SignupService } from './signup.service';

@ApiTags('Login')
@ApiErrors()
@Controller('api/v1')
export class AuthController {
  constructor(
    private readonly logins: LoginService,
    private readonly signups: SignupService,
    private readonly invitations: InvitationService,
  ) {}

  @Public()
  @Post('login/password')
  @HttpCode(200)
  @ApiOperation({ summary: 'Password challenge: starts or continues an authentication transaction' })
  @ApiOkResponse({ type: AuthResultResponse })
  password(@Body() body: PasswordLoginDto, @ClientIp() ip: string): Promise<AuthResultResponse> {
    return this.logins.passwordStep(body, ip);
  }

  @Public()
  @Post('login/otp/begin')
  @HttpCode(200)
  @ApiOperation({ summary: 'Begin an OTP challenge: sends a code to the chosen (or primary) registration; TOTP sends nothing' })
  @ApiOkResponse({ type: OtpBeginResponse })
  otpBegin(@Body() body: OtpBeginDto, @ClientIp() ip: string): Promise<OtpBeginResponse> {
    return this.logins.otpBegin(body, ip);
  }

  @Public()
  @Post('login/otp')
  @HttpCode(200)
  @ApiOperation({ summary: 'OTP challenge: verifies the code (in password, or code) for the transaction' })
  @ApiOkResponse({ type: AuthResultResponse })
  otp(@Body() body: OtpLoginDto, @ClientIp() ip: string): Promise<AuthResultResponse> {
    return this.logins.otpStep(body, ip);
  }

  @Public()
  @Post('signup')
  @HttpCode(200)
  @ApiOperation({ summary: 'Self sign-up where SelfSignUpAllowed; in an MFA-required sector, email-MFA enrollment comes first' })
  @ApiOkResponse({ type: AuthResultResponse })
  signup(@Body() body: SignupDto, @ClientIp() ip: string): Promise<AuthResultResponse> {
    return this.signups.signup(body, ip);
  }

  @Public()
  @Post('signup/mfa/begin')
  @HttpCode(200)
  @ApiOperation({ summary: 'Mail an enrollment code for a transaction left at MFA_ENROLLMENT_REQUIRED' })
  @ApiOkResponse({ type: AuthResultResponse })
  signupMfaBegin(@Body() body: SignupMfaBeginDto, @ClientIp() ip: string): Promise<AuthResultResponse> {
    return this.signups.mfaBegin(body, ip);
  }

  @Public()
  @Post('signup/mfa/verify')
  @HttpCode(200)
  @ApiOperation({ summary: 'Verify the signup MFA code: verifies the email, registers it as a factor, issues the token' })
  @ApiOkResponse({ type: SignupMfaVerifyResponse })
  signupMfaVerify(@Body() body: SignupMfaVerifyDto, @ClientIp() ip: string): Promise<SignupMfaVerifyResponse> {
    return this.signups.mfaVerify(body, ip);
  }

  @Public()
  @Post('invites/accept')
  @HttpCode(200)
  @ApiOperation({ summary: 'Accept an invitation: set the password, verify the email, sign in' })
  @ApiOkResponse({ type: AuthResultResponse })
  acceptInvite(@Body() body: AcceptInviteDto, @ClientIp() ip: string): Promise<AuthResultResponse> {
    return this.invitations.accept(body, ip);
  }
}
