import { translatingUniqueViolations } from '../common/errors/db-errors';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { Injectable } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';
import { likeEscape, Paging } from '../common/wire/paging';
import { SectorEntity } from './sector.entity';

export interface SectorFilter {
  searchTerm?: string;
  filterDomain?: string;
}

/** Sectors in a tenant's database (their routing entries in the main directory: DirectoryRepository). */
@Injectable()
export class SectorRepository {
  findById(db: TenantDb, id: string): Promise<SectorEntity | null> {
    return db.manager.getRepository(SectorEntity).findOneBy({ id });
  }

  /** Inserts a sector; a slug taken in the tenant is ALREADY_EXISTS. */
  async insert(db: TenantDb, sector: SectorEntity): Promise<void> {
    await translatingUniqueViolations(() => db.manager.getRepository(SectorEntity).insert(sector), {
      sectors_slug_key: () => DomainError.alreadyExists(Reason.SECTOR_SLUG_TAKEN, `A sector with slug "${sector.slug}" already exists in this tenant.`),
    });
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
}
