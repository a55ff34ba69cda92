import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { AuthStateCache } from '../tenancy/auth-state-cache';
import { TenantConnections } from '../tenancy/tenant-connections';
import { TenantDb } from '../tenancy/tenant-db';
import { SectorRoute, TenantDirectory } from '../tenancy/tenant-directory';
import { SectorSettingsEntity } from './sector-settings.entity';
import { SettingsRepository } from './settings.repository';

/**
 * The sector one request acts on, resolved once: its route (tenant, sector id,
 * default flag), the tenant's database handle, and its settings, read on first
 * use (through the authorization-state cache: settings decide who may read and
 * create users, and every change reaches every instance on commit) and then kept
 * for the rest of the request; shared between requests, so frozen. Guards resolve it for protected
 * routes and sign-in flows for public ones; services take it as their first
 * argument instead of opening the tenant database and reading settings again.
 */
export interface SectorScope {
  readonly route: SectorRoute;
  readonly db: TenantDb;
  /** The sector's settings (NOT_FOUND when the sector has none: it was removed). */
  settings(): Promise<SectorSettingsEntity>;
}

@Injectable()
export class SectorScopes {
  constructor(
    private readonly directory: TenantDirectory,
    private readonly connections: TenantConnections,
    private readonly settingsRepo: SettingsRepository,
    private readonly cache: AuthStateCache,
  ) {}

  /** The scope of a routed sector. */
  async of(route: SectorRoute): Promise<SectorScope> {
    return this.withDb(route, await this.connections.db(route.tenant));
  }

  /** The scope of a routed sector whose tenant database handle the caller already holds. */
  withDb(route: SectorRoute, db: TenantDb): SectorScope {
    let settings: Promise<SectorSettingsEntity> | undefined;
    const load = async (): Promise<SectorSettingsEntity> => {
      // Inside a transaction the settings are read in it; otherwise through the cache every change reaches on commit.
      const row = db.manager.queryRunner
        ? await this.settingsRepo.find(db, route.sectorId)
        : await this.cache.read(route.tenant, `${route.tenant.id}:s:${route.sectorId}`, () => this.settingsRepo.find(db, route.sectorId).then(frozen), () => `s:${route.sectorId}`);
      if (!row) throw DomainError.notFound(Reason.SECTOR_NOT_FOUND, 'No such sector.');
      return row;
    };
    return {
      route,
      db,
      settings: () => {
        settings ??= load();
        return settings;
      },
    };
  }

  /** The scope of a sector named by id (NOT_FOUND, or INVALID_ARGUMENT for a malformed id). */
  async byId(sectorId: string): Promise<SectorScope> {
    return this.of(await this.directory.routeSector(sectorId));
  }

  /** The sector of a sign-in, signup or OAuth request: omitted means the platform tenant's default sector. */
  async forSignIn(sectorId: string | undefined): Promise<SectorScope> {
    return this.of(await this.directory.routeSectorOrPlatformDefault(sectorId));
  }
}

/** A settings row shared between requests: frozen, arrays and the per-language templates included, so no caller can change it for the others. */
function frozen(row: SectorSettingsEntity | null): SectorSettingsEntity | null {
  if (!row) return row;
  for (const value of Object.values(row)) if (Array.isArray(value)) Object.freeze(value);
  for (const templates of Object.values(row.localizedTemplates ?? {})) Object.freeze(templates);
  Object.freeze(row.localizedTemplates);
  return Object.freeze(row);
}
