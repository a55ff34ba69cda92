import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { TenantDb } from '../tenancy/tenant-db';
import { likeEscape, Paging } from '../common/wire/paging';
import { MAIN_DATA_SOURCE } from '../database/tokens';
import { SectorDirectoryEntity } from '../tenancy/sector-directory.entity';
import { SectorEntity } from './sector.entity';

export interface SectorFilter {
  searchTerm?: string;
  filterDomain?: string;
}

/** Sectors in a tenant's database, and their routing entries in the main directory. */
@Injectable()
export class SectorRepository {
  constructor(@Inject(MAIN_DATA_SOURCE) private readonly main: DataSource) {}

  findById(db: TenantDb, id: string): Promise<SectorEntity | null> {
    return db.manager.getRepository(SectorEntity).findOneBy({ id });
  }

  async insert(db: TenantDb, sector: SectorEntity): Promise<void> {
    await db.manager.getRepository(SectorEntity).insert(sector);
  }

  async list(db: TenantDb, filter: SectorFilter, p: Paging): Promise<{ items: SectorEntity[]; total: number }> {
    const qb = db.manager.getRepository(SectorEntity).createQueryBuilder('s');
    if (filter.searchTerm) {
      qb.andWhere("(s.name ILIKE :term ESCAPE '\\' OR s.domain ILIKE :term ESCAPE '\\')", { term: `%${likeEscape(filter.searchTerm)}%` });
    }
    if (filter.filterDomain) qb.andWhere('lower(s.domain) = lower(:domain)', { domain: filter.filterDomain });
    const [items, total] = await qb.orderBy('s.created_at', 'ASC').addOrderBy('s.id', 'ASC').skip(p.offset).take(p.pageSize).getManyAndCount();
    return { items, total };
  }

  async count(db: TenantDb): Promise<number> {
    return db.manager.getRepository(SectorEntity).count();
  }

  /** Adds the routing entry of a sector to the main directory (in `em`'s transaction when given). */
  async insertDirectoryEntry(tenantId: string, sector: SectorEntity, em: EntityManager = this.main.manager): Promise<void> {
    await em.getRepository(SectorDirectoryEntity).insert({
      sectorId: sector.id,
      tenantId,
      slug: sector.slug,
      name: sector.name,
      isDefault: sector.isDefault,
    });
  }

  async deleteDirectoryEntry(sectorId: string): Promise<void> {
    await this.main.getRepository(SectorDirectoryEntity).delete({ sectorId });
  }

  /** The tenant's sectors as the directory lists them (no tenant database needed). */
  directoryEntries(tenantId: string): Promise<SectorDirectoryEntity[]> {
    return this.main.getRepository(SectorDirectoryEntity).find({ where: { tenantId }, order: { isDefault: 'DESC', slug: 'ASC' } });
  }
}
