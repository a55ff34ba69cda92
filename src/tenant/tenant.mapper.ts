import { MAIN_SERVER } from '../config/app-config';
import { SectorDirectoryEntity } from '../tenancy/sector-directory.entity';
import { TenantListItem, TenantResponse, TenantSectorSummary } from './dto/tenant.dto';
import { TenantEntity } from '../tenancy/tenant.entity';

export function toTenantResponse(t: TenantEntity, sectorCount: number): TenantResponse {
  return {
    tenantID: t.id,
    slug: t.slug,
    kid: t.kid,
    isPlatform: t.isPlatform,
    databaseServer: t.databaseServer ?? MAIN_SERVER,
    rootSectorID: t.rootSectorId,
    sectorCount,
    subSectorCount: Math.max(0, sectorCount - 1),
  };
}

export function toTenantListItem(t: TenantEntity, sectorCount: number): TenantListItem {
  return { ...toTenantResponse(t, sectorCount), name: t.name, createdAt: new Date(t.createdAt).toISOString() };
}

export function toTenantSectorSummary(s: SectorDirectoryEntity): TenantSectorSummary {
  return { sectorID: s.sectorId, slug: s.slug, name: s.name, isDefault: s.isDefault };
}
