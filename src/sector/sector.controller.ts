import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../access/decorators';
import { TargetScope } from '../settings/request-targets';
import { SectorScope } from '../settings/sector-scope';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { CreateSectorDto, ListSectorsQuery, ListSectorsResponse, SectorResponse } from './dto/sector.dto';
import { SectorService } from './sector.service';

@ApiTags('Sectors')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/sectors')
export class SectorController {
  constructor(private readonly sectors: SectorService) {}

  @Get()
  @Authenticated({ role: Role.DEFAULT_SECTOR_ADMIN, sectorFrom: 'callerTenant' })
  @ApiOperation({ summary: "List the sectors of the caller's tenant" })
  @ApiOkResponse({ type: ListSectorsResponse })
  list(@TargetScope() scope: SectorScope, @Query() query: ListSectorsQuery): Promise<ListSectorsResponse> {
    return this.sectors.list(scope, query);
  }

  @Post()
  @HttpCode(200)
  @Authenticated({ role: Role.DEFAULT_SECTOR_ADMIN, sectorFrom: 'callerTenant' })
  @ApiOperation({ summary: "Create a sector in the caller's tenant" })
  @ApiOkResponse({ type: SectorResponse })
  create(@TargetScope() scope: SectorScope, @Body() body: CreateSectorDto): Promise<SectorResponse> {
    return this.sectors.create(scope, body);
  }
}
