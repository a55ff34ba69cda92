import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { TenantConnections } from '../tenancy/tenant-connections';
import { SectorRoute } from '../tenancy/tenant-directory';
import { SectorSettingsResponse, UpdateSectorSettingsDto } from './dto/sector-settings.dto';
import { toSettingsPatch, toSettingsResponse } from './settings.mapper';
import { SettingsRepository } from './settings.repository';
import { SectorSettingsEntity } from './sector-settings.entity';

@Injectable()
export class SettingsService {
  constructor(
    private readonly connections: TenantConnections,
    private readonly settings: SettingsRepository,
  ) {}

  /** The settings of a routed sector, as the domain uses them. */
  async load(route: SectorRoute): Promise<SectorSettingsEntity> {
    const db = await this.connections.db(route.tenant);
    const row = await this.settings.find(db, route.sectorId);
    if (!row) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
    return row;
  }

  async get(route: SectorRoute): Promise<SectorSettingsResponse> {
    return toSettingsResponse(await this.load(route));
  }

  async update(route: SectorRoute, dto: UpdateSectorSettingsDto): Promise<SectorSettingsResponse> {
    const db = await this.connections.db(route.tenant);
    const row = await this.settings.update(db, route.sectorId, toSettingsPatch(dto));
    if (!row) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
    return toSettingsResponse(row);
  }
}
