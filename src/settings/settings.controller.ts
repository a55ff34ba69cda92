import { Body, Controller, Get, HttpCode, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal } from '../access/decorators';
import { TargetScope } from './request-targets';
import { Principal } from '../access/principal';
import { Role } from '../access/role-matrix';
import { SectorScope } from './sector-scope';
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
  update(@TargetScope() scope: SectorScope, @CurrentPrincipal() caller: Principal, @Body() body: UpdateSectorSettingsDto): Promise<SectorSettingsResponse> {
    return this.settings.update(scope, body, caller);
  }

  @Get()
  @Authenticated({ role: Role.SECTOR_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Get sector security settings' })
  @ApiOkResponse({ type: SectorSettingsResponse })
  get(@TargetScope() scope: SectorScope, @Query() _query: GetSectorSettingsQuery): Promise<SectorSettingsResponse> {
    return this.settings.get(scope);
  }
}
