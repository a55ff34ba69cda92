import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../access/decorators';
import { Principal } from '../access/principal';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { IntrospectDto, IntrospectionResponse } from './dto/introspection.dto';
import { IntrospectionService } from './introspection.service';

@ApiTags('Introspection')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/introspect')
export class IntrospectionController {
  constructor(private readonly introspection: IntrospectionService) {}

  @Post()
  @HttpCode(200)
  @Authenticated({ role: Role.AUTHENTICATED })
  @ApiOperation({ summary: 'Validate an access token of the caller’s tenant' })
  @ApiOkResponse({ type: IntrospectionResponse })
  introspect(@CurrentPrincipal() caller: Principal, @Body() body: IntrospectDto): Promise<IntrospectionResponse> {
    return this.introspection.introspect(caller, body.token);
  }
}
