import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Public } from '../access/decorators';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { ApiErrors } from '../common/http/api-errors';
import { MAIN_DATA_SOURCE } from '../database/tokens';
import { Lifecycle } from './lifecycle';

class HealthResponse {
  @ApiProperty({ example: 'ok' }) status: string;
}

@ApiTags('Health')
@Controller()
export class HealthController {
  constructor(
    @Inject(MAIN_DATA_SOURCE) private readonly main: DataSource,
    private readonly lifecycle: Lifecycle,
  ) {}

  @Public()
  @Get('healthz')
  @ApiOkResponse({ type: HealthResponse, description: 'Liveness' })
  live(): HealthResponse {
    return { status: 'ok' };
  }

  @Public()
  @Get('readyz')
  @ApiErrors()
  @ApiOkResponse({ type: HealthResponse, description: 'Readiness: the main database answers and the instance is not shutting down' })
  async ready(): Promise<HealthResponse> {
    if (this.lifecycle.draining) throw DomainError.unavailable(Reason.SHUTTING_DOWN, 'This instance is shutting down.');
    try {
      await this.main.query('SELECT 1');
    } catch (err) {
      throw DomainError.unavailable(Reason.DATABASE_UNAVAILABLE, 'The main database is unreachable.', err);
    }
    return { status: 'ok' };
  }
}
