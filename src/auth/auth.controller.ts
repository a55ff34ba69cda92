import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ClientIp, Public } from '../common/auth/decorators';
import { ApiErrors } from '../common/http/api-errors';
import { AuthFlowService } from './auth-flow.service';
import { AcceptInviteDto, AuthResultResponse, PasswordLoginDto } from './dto/auth.dto';

@ApiTags('Login')
@ApiErrors()
@Controller('api/v1')
export class AuthController {
  constructor(private readonly flows: AuthFlowService) {}

  @Public()
  @Post('login/password')
  @HttpCode(200)
  @ApiOperation({ summary: 'Password challenge: starts or continues an authentication transaction' })
  @ApiOkResponse({ type: AuthResultResponse })
  password(@Body() body: PasswordLoginDto, @ClientIp() ip: string): Promise<AuthResultResponse> {
    return this.flows.passwordStep(body, ip);
  }

  @Public()
  @Post('invites/accept')
  @HttpCode(200)
  @ApiOperation({ summary: 'Accept an invitation: set the password, verify the email, sign in' })
  @ApiOkResponse({ type: AuthResultResponse })
  acceptInvite(@Body() body: AcceptInviteDto, @ClientIp() ip: string): Promise<AuthResultResponse> {
    return this.flows.acceptInvite(body, ip);
  }
}
