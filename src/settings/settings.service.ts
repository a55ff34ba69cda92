import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { SectorSettingsResponse, UpdateSectorSettingsDto } from './dto/sector-settings.dto';
import { toSettingsPatch, toSettingsResponse } from './settings.mapper';
import { SettingsRepository } from './settings.repository';
import { SectorScope } from './sector-scope';

/** Operations 1 and 2: a sector's security settings. */
@Injectable()
export class SettingsService {
  constructor(private readonly settings: SettingsRepository) {}

  async get(scope: SectorScope): Promise<SectorSettingsResponse> {
    return toSettingsResponse(await scope.settings());
  }

  async update(scope: SectorScope, dto: UpdateSectorSettingsDto): Promise<SectorSettingsResponse> {
    const row = await this.settings.update(scope.db, scope.route.sectorId, toSettingsPatch(dto));
    if (!row) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
    return toSettingsResponse(row);
  }
}
