import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../access/decorators';
import { JwksResponse } from './dto/jwks.response';
import { KeyService } from './key.service';

@ApiTags('Keys')
@Controller()
export class JwksController {
  constructor(private readonly keys: KeyService) {}

  @Public()
  @Get('.well-known/jwks.json')
  @Header('Cache-Control', 'public, max-age=60')
  @ApiOkResponse({ type: JwksResponse, description: 'Public signing keys of every tenant (JWK Set).' })
  jwks(): JwksResponse {
    return this.keys.jwks() as unknown as JwksResponse;
  }
}
