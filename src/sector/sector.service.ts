import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DirectoryRepository } from '../tenancy/directory.repository';
import { TenantDb } from '../tenancy/tenant-db';
import { pageInfo, paging } from '../common/wire/paging';
import { SettingsRepository } from '../settings/settings.repository';
import { SectorScope } from '../settings/sector-scope';
import { CreateSectorDto, ListSectorsQuery, ListSectorsResponse, SectorResponse } from './dto/sector.dto';
import { toSectorResponse } from './sector.mapper';
import { SectorRepository } from './sector.repository';
import { SectorEntity } from './sector.entity';

export interface NewSector {
  id?: string;
  name: string;
  slug: string;
  domain?: string;
  allowedOrigins?: string[];
  isDefault?: boolean;
}

@Injectable()
export class SectorService {
  constructor(
    private readonly sectors: SectorRepository,
    private readonly settings: SettingsRepository,
    private readonly directoryRepo: DirectoryRepository,
  ) {}

  /** Inserts a sector and its default settings inside the caller's tenant transaction. */
  async insertWithSettings(tx: TenantDb, input: NewSector): Promise<SectorEntity> {
    const sector = new SectorEntity();
    sector.id = input.id ?? randomUUID();
    sector.name = input.name;
    sector.slug = input.slug;
    sector.domain = input.domain ?? '';
    sector.allowedOrigins = input.allowedOrigins ?? [];
    sector.isDefault = input.isDefault ?? false;
    await this.sectors.insert(tx, sector);
    await this.settings.createDefaults(tx, sector.id);
    return sector;
  }

  /** Creates a sector in `tenant`: tenant rows and the directory entry, all or nothing. */
  async create(scope: SectorScope, dto: CreateSectorDto): Promise<SectorResponse> {
    const { db } = scope;
    const tenant = scope.route.tenant;
    let routed: SectorEntity | undefined;
    try {
      const sector = await db.transaction(async (tx) => {
        const s = await this.insertWithSettings(tx, { ...dto, isDefault: false });
        // The routing entry is written just before the tenant commit; undone below if that commit fails.
        await this.directoryRepo.insertSectorEntry(tenant.id, s);
        routed = s;
        return s;
      });
      return toSectorResponse(sector);
    } catch (err) {
      if (routed) await this.directoryRepo.deleteSectorEntry(routed.id).catch(() => undefined);
      throw err;
    }
  }

  async list(scope: SectorScope, query: ListSectorsQuery): Promise<ListSectorsResponse> {
    const p = paging(query.pageSize, query.page);
    const { items, total } = await this.sectors.list(scope.db, { searchTerm: query.searchTerm, filterDomain: query.filterDomain }, p);
    return { sectors: items.map(toSectorResponse), ...pageInfo(total, p) };
  }
}
