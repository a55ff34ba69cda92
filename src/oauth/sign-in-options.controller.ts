import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../access/decorators';
import { ApiErrors } from '../common/http/api-errors';
import { SignInOptionsQuery, SignInOptionsResponse } from './dto/sign-in-options.dto';
import { SignInOptionsService } from './sign-in-options.service';

/** What a sector's sign-in page offers (public; docs/api.md, Sign-in options). */
@ApiTags('Authentication')
@ApiErrors()
@Controller('api/v1/sign-in-options')
export class SignInOptionsController {
  constructor(private readonly options: SignInOptionsService) {}

  @Public()
  @Get()
  @ApiOperation({ summary: "What a sector's sign-in page offers: signup, sign-in links, MFA, social providers" })
  @ApiOkResponse({ type: SignInOptionsResponse })
  get(@Query() query: SignInOptionsQuery): Promise<SignInOptionsResponse> {
    return this.options.of(query);
  }
}
