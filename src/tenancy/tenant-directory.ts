import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { MAIN_DATA_SOURCE } from '../database/tokens';
import { DirectoryChanges, KEYS_CHANGE, TENANT_CHANGE } from './directory-changes';
import { SectorDirectoryEntity } from './sector-directory.entity';
import { TenantEntity } from './tenant.entity';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { isUuid } from '../common/wire/wire';

export interface SectorRoute {
  sectorId: string;
  tenant: TenantEntity;
  isDefault: boolean;
}

/**
 * How long a tenant row is trusted without news of it: every change that matters is
 * announced on the directory channel (a move: `tenant:<id>`; a new signing key:
 * `keys`), so this only bounds what a lost announcement could leave stale.
 */
const TENANT_CACHE_MS = 60_000;

/**
 * Read side of the main database's directory: tenants by id, slug and platform
 * flag, and which tenant a sector belongs to. Tenant rows are cached until the
 * directory announces a change of them (their `kid` changes on rotation, their server
 * on a move), for a minute at most; sector routes never change.
 */
@Injectable()
export class TenantDirectory {
  private readonly tenants = new Map<string, { tenant: TenantEntity; at: number }>();
  private readonly sectors = new Map<string, { tenantId: string; isDefault: boolean }>();
  private platformId: string | undefined;

  constructor(@Inject(MAIN_DATA_SOURCE) private readonly main: DataSource, changes: DirectoryChanges) {
    // A tenant row changed by any instance or command (a move to another server, a new key): read it again at once.
    changes.subscribe((what) => {
      if (what === '*' || what === 'keys') this.tenants.clear();
      else if (what.startsWith(TENANT_CHANGE)) this.tenants.delete(what.slice(TENANT_CHANGE.length));
      else if (what.startsWith(KEYS_CHANGE)) this.tenants.delete(what.slice(KEYS_CHANGE.length));
    });
  }

  async tenantById(id: string): Promise<TenantEntity | undefined> {
    if (!isUuid(id)) return undefined;
    const cached = this.cachedTenant(id);
    if (cached) return cached;
    const tenant = await this.main.getRepository(TenantEntity).findOneBy({ id });
    if (tenant) this.remember(tenant);
    else this.tenants.delete(id);
    return tenant ?? undefined;
  }

  /** The tenant `tenantById` would answer without a query, or undefined. */
  cachedTenant(id: string): TenantEntity | undefined {
    const cached = this.tenants.get(id);
    return cached && Date.now() - cached.at < TENANT_CACHE_MS ? cached.tenant : undefined;
  }

  async requireTenant(id: string): Promise<TenantEntity> {
    const tenant = await this.tenantById(id);
    if (!tenant) throw DomainError.notFound(Reason.TENANT_NOT_FOUND, 'No such tenant.');
    return tenant;
  }

  async tenantBySlug(slug: string): Promise<TenantEntity | undefined> {
    const tenant = await this.main.getRepository(TenantEntity).findOneBy({ slug });
    if (tenant) this.remember(tenant);
    return tenant ?? undefined;
  }

  async platform(): Promise<TenantEntity> {
    if (this.platformId) return this.requireTenant(this.platformId);
    const tenant = await this.main.getRepository(TenantEntity).findOneBy({ isPlatform: true });
    if (!tenant) throw new Error('The platform tenant does not exist yet');
    this.platformId = tenant.id;
    this.remember(tenant);
    return tenant;
  }

  /** Where a sector lives; NOT_FOUND (or INVALID_ARGUMENT for a malformed id) otherwise. */
  async routeSector(sectorId: string): Promise<SectorRoute> {
    if (!isUuid(sectorId)) throw DomainError.invalidField('sectorID', 'must be a UUID');
    let entry = this.sectors.get(sectorId);
    if (!entry) {
      const row = await this.main.getRepository(SectorDirectoryEntity).findOneBy({ sectorId });
      if (!row) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
      entry = { tenantId: row.tenantId, isDefault: row.isDefault };
      if (this.sectors.size > 100_000) this.sectors.clear();
      this.sectors.set(sectorId, entry);
    }
    const tenant = await this.tenantById(entry.tenantId);
    if (!tenant) {
      this.sectors.delete(sectorId);
      throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
    }
    return { sectorId, tenant, isDefault: entry.isDefault };
  }

  /** The sector of `tenant` whose slug is `sectorSlug`, or undefined (no cache: callers keep what they build from it). */
  async sectorBySlug(tenant: TenantEntity, sectorSlug: string): Promise<SectorRoute | undefined> {
    const row = await this.main.getRepository(SectorDirectoryEntity).findOneBy({ tenantId: tenant.id, slug: sectorSlug });
    return row ? { sectorId: row.sectorId, tenant, isDefault: row.isDefault } : undefined;
  }

  /**
   * A sector named as the sign-in pages' addresses name it: its tenant's slug and
   * its own (omitted: the tenant's default sector). NOT_FOUND otherwise.
   */
  async routeBySlugs(tenantSlug: string, sectorSlug?: string): Promise<SectorRoute> {
    const tenant = await this.tenantBySlug(tenantSlug);
    if (!tenant) throw DomainError.notFound(Reason.TENANT_NOT_FOUND, 'No such tenant.');
    if (!sectorSlug) return { sectorId: tenant.rootSectorId, tenant, isDefault: true };
    const route = await this.sectorBySlug(tenant, sectorSlug);
    if (!route) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
    return route;
  }

  /** The slug of a sector (what URLs name it by), or undefined when there is no such sector. */
  async sectorSlug(sectorId: string): Promise<string | undefined> {
    if (!isUuid(sectorId)) return undefined;
    return (await this.main.getRepository(SectorDirectoryEntity).findOneBy({ sectorId }))?.slug;
  }

  /** A sector given in a login, signup or OAuth request; omitted means the platform tenant's default sector. */
  async routeSectorOrPlatformDefault(sectorId: string | undefined): Promise<SectorRoute> {
    if (sectorId === undefined || sectorId === '') {
      const platform = await this.platform();
      return { sectorId: platform.rootSectorId, tenant: platform, isDefault: true };
    }
    return this.routeSector(sectorId);
  }

  remember(tenant: TenantEntity): void {
    this.tenants.set(tenant.id, { tenant, at: Date.now() });
  }

  forget(tenantId: string): void {
    this.tenants.delete(tenantId);
  }
}
