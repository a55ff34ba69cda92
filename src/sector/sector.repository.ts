import { translatingUniqueViolations } from '../common/errors/db-errors';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { Injectable } from '@nestjs/common';
import { countedPage } from '../database/counted-page';
import { TenantDb } from '../tenancy/tenant-db';
import { likeEscape, Paging } from '../common/wire/paging';
import { SectorEntity, SectorSummary } from './sector.entity';

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

  /**
   * One page of sectors and how many match, in one statement (the count is a
   * window over the filtered rows); a page past the end counts separately.
   */
  async list(db: TenantDb, filter: SectorFilter, p: Paging): Promise<{ items: SectorSummary[]; total: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.searchTerm) {
      params.push(`%${likeEscape(filter.searchTerm)}%`);
      where.push(`(name ILIKE $${params.length} ESCAPE '\\' OR domain ILIKE $${params.length} ESCAPE '\\')`);
    }
    if (filter.filterDomain) {
      params.push(filter.filterDomain);
      where.push(`lower(domain) = lower($${params.length})`);
    }
    return countedPage<SectorSummary>((sql, values) => db.read(sql, values), {
      select: `id, name, domain, slug, is_default AS "isDefault", allowed_origins AS "allowedOrigins"`,
      from: 'sectors',
      where: where.length ? `WHERE ${where.join(' AND ')}` : '',
      params,
      orderBy: 'created_at, id',
      limit: p.pageSize,
      offset: p.offset,
    });
  }

  async count(db: TenantDb): Promise<number> {
    return db.manager.getRepository(SectorEntity).count();
  }
}
