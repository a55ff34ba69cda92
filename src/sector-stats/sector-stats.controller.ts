import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../access/decorators';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { TargetScope } from '../settings/request-targets';
import { SectorScope } from '../settings/sector-scope';
import { SectorStatsQuery, SectorStatsResponse } from './dto/sector-stats.dto';
import { SectorStatsService } from './sector-stats.service';

@ApiTags('Sector statistics')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/sectors/:sectorID/stats')
export class SectorStatsController {
  constructor(private readonly stats: SectorStatsService) {}

  @Get()
  // The figures come from the audit trail: who may read it may read them.
  @Authenticated({ role: Role.AUDIT_READER, sectorFrom: 'param' })
  @ApiOperation({ summary: "The sector's users, live sessions and sign-in activity per UTC day (signed-in admins only, never API tokens)" })
  @ApiOkResponse({ type: SectorStatsResponse })
  read(@TargetScope() scope: SectorScope, @Query() query: SectorStatsQuery): Promise<SectorStatsResponse> {
    return this.stats.read(scope, query.days);
  }
}
