import { Body, Controller, Get, HttpCode, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, TargetSector } from '../access/decorators';
import { Role } from '../access/role-matrix';
import { SectorRoute } from '../tenancy/tenant-directory';
import { ApiErrors } from '../common/http/api-errors';
import { GetSectorSettingsQuery, SectorSettingsResponse, UpdateSectorSettingsDto } from './dto/sector-settings.dto';
import { SettingsService } from './settings.service';

@ApiTags('Sector settings')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/sectors/:sectorID/settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Put()
  @HttpCode(200)
  @Authenticated({ role: Role.SECTOR_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Update sector security settings (fields absent from the body keep their value)' })
  @ApiOkResponse({ type: SectorSettingsResponse })
  update(@TargetSector() sector: SectorRoute, @Body() body: UpdateSectorSettingsDto): Promise<SectorSettingsResponse> {
    return this.settings.update(sector, body);
  }

  @Get()
  @Authenticated({ role: Role.SECTOR_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Get sector security settings' })
  @ApiOkResponse({ type: SectorSettingsResponse })
  get(@TargetSector() sector: SectorRoute, @Query() _query: GetSectorSettingsQuery): Promise<SectorSettingsResponse> {
    return this.settings.get(sector);
  }
}
