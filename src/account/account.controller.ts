import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, ClientIp, Public } from '../access/decorators';
import { TargetUser, TargetUserRef } from '../settings/request-targets';
import { Role } from '../access/role-matrix';
import { AuthResultResponse } from '../auth/engine/auth.dto';
import { ApiErrors } from '../common/http/api-errors';
import { AccountService } from './account.service';
import {
  EmailChangeConfirmedResponse,
  EmailVerificationSentResponse,
  EmailVerifiedResponse,
  ForgotPasswordDto,
  LinkSentResponse,
  LinkTokenDto,
  MagicLinkBeginDto,
  ResetPasswordDto,
} from './dto/account.dto';

@ApiTags('Account')
@ApiErrors()
@Controller('api/v1')
export class AccountController {
  constructor(private readonly accounts: AccountService) {}

  @Public()
  @Post('password/forgot')
  @HttpCode(200)
  @ApiOperation({ summary: 'Mail a single-use password-reset link (the same answer whether or not the account exists)' })
  @ApiOkResponse({ type: LinkSentResponse })
  forgot(@Body() body: ForgotPasswordDto, @ClientIp() ip: string): Promise<LinkSentResponse> {
    return this.accounts.forgotPassword(body, ip);
  }

  @Public()
  @Post('password/reset')
  @HttpCode(200)
  @ApiOperation({ summary: 'Set a new password with a reset link: verifies the email, ends every session, signs in (MFA still applies)' })
  @ApiOkResponse({ type: AuthResultResponse })
  reset(@Body() body: ResetPasswordDto, @ClientIp() ip: string): Promise<AuthResultResponse> {
    return this.accounts.resetPassword(body, ip);
  }

  @Public()
  @Post('login/magic-link/begin')
  @HttpCode(200)
  @ApiOperation({ summary: 'Mail a single-use sign-in link where MagicLinkLoginEnabled (the same answer whether or not the account exists)' })
  @ApiOkResponse({ type: LinkSentResponse })
  magicLinkBegin(@Body() body: MagicLinkBeginDto, @ClientIp() ip: string): Promise<LinkSentResponse> {
    return this.accounts.beginMagicLink(body, ip);
  }

  @Public()
  @Post('login/magic-link/finish')
  @HttpCode(200)
  @ApiOperation({ summary: 'Sign in with a magic link: a first factor (MFA still applies)' })
  @ApiOkResponse({ type: AuthResultResponse })
  magicLinkFinish(@Body() body: LinkTokenDto, @ClientIp() ip: string): Promise<AuthResultResponse> {
    return this.accounts.finishMagicLink(body.token, ip);
  }

  @Post('users/:sub/email/verify')
  @HttpCode(200)
  @ApiBearerAuth()
  @Authenticated({ role: Role.USER_CREDENTIALS, sectorFrom: 'userParam' })
  @ApiOperation({ summary: "Mail a verification link to the user's unverified email (the user, or a signed-in admin over the user's sector)" })
  @ApiOkResponse({ type: EmailVerificationSentResponse })
  beginEmailVerification(@TargetUser() target: TargetUserRef, @ClientIp() ip: string): Promise<EmailVerificationSentResponse> {
    return this.accounts.beginEmailVerification(target, ip);
  }

  @Public()
  @Post('email/verify')
  @HttpCode(200)
  @ApiOperation({ summary: 'Follow a verification link: marks the email verified if it is still the address the link was sent to' })
  @ApiOkResponse({ type: EmailVerifiedResponse })
  verifyEmail(@Body() body: LinkTokenDto): Promise<EmailVerifiedResponse> {
    return this.accounts.finishEmailVerification(body.token);
  }

  @Public()
  @Post('email/change/confirm')
  @HttpCode(200)
  @ApiOperation({ summary: "Follow an email-change link: the new address becomes the user's email, verified (if it is still free in the sector)" })
  @ApiOkResponse({ type: EmailChangeConfirmedResponse })
  confirmEmailChange(@Body() body: LinkTokenDto): Promise<EmailChangeConfirmedResponse> {
    return this.accounts.confirmEmailChange(body.token);
  }
}
