import { Inject, Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { SectorScope, SectorScopes } from '../settings/sector-scope';
import { AuthStateCache } from '../tenancy/auth-state-cache';
import { TenantDirectory } from '../tenancy/tenant-directory';
import { BrandAssetResponse } from './dto/brand-asset.dto';
import { toBrandAssetResponse } from './branding.mapper';
import { BrandingRepository } from './branding.repository';
import { BRAND_ASSETS, BrandAsset, checkImage } from './image-check';
import { SectorAssetEntity } from './sector-asset.entity';

/** The settings field each image appears as (and the audit trail names when it changes). */
const SETTING_OF: Record<BrandAsset, string> = { logo: 'BrandLogoURL', favicon: 'BrandFaviconURL' };

function assetOf(name: string): BrandAsset {
  if (!(BRAND_ASSETS as readonly string[]).includes(name)) throw DomainError.notFound(Reason.ROUTE_NOT_FOUND, 'No such route: the images are `logo` and `favicon`.');
  return name as BrandAsset;
}

function assetNotFound(): DomainError {
  return DomainError.notFound(Reason.BRAND_ASSET_NOT_FOUND, 'No such image.');
}

/**
 * A sector's logo and favicon: uploaded by its admins, checked by their bytes, kept in
 * the tenant's database, and served to anyone at an address that changes with the image
 * (so it may be cached for good).
 */
@Injectable()
export class BrandingService {
  constructor(
    private readonly assets: BrandingRepository,
    private readonly scopes: SectorScopes,
    private readonly directory: TenantDirectory,
    private readonly audit: AuditService,
    private readonly cache: AuthStateCache,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Stores the image, points the settings at it and records the change, in one transaction. */
  async upload(scope: SectorScope, assetName: string, base64: string): Promise<BrandAssetResponse> {
    const kind = assetOf(assetName);
    const bytes = Buffer.from(base64, 'base64');
    const checked = checkImage(kind, bytes);
    if (typeof checked === 'string') throw DomainError.invalidArgument(`Invalid request: data: ${checked}`, [{ field: 'data', description: checked }]);
    const sectorId = scope.route.sectorId;
    const asset: Omit<SectorAssetEntity, 'updatedAt'> = { sectorId, kind, bytes, ...checked };
    await scope.db.transaction(async (tx) => {
      await this.assets.put(tx, asset);
      await this.audit.record(tx, { type: 'settings.updated', sectorId, target: { kind: 'sector', id: sectorId }, details: { fields: [SETTING_OF[kind]] } });
    });
    this.cache.forget(scope.route.tenant, `s:${sectorId}`);
    return toBrandAssetResponse(asset, this.config.publicUrl);
  }

  async remove(scope: SectorScope, assetName: string): Promise<void> {
    const kind = assetOf(assetName);
    const sectorId = scope.route.sectorId;
    await scope.db.transaction(async (tx) => {
      if (!(await this.assets.remove(tx, sectorId, kind))) throw assetNotFound();
      await this.audit.record(tx, { type: 'settings.updated', sectorId, target: { kind: 'sector', id: sectorId }, details: { fields: [SETTING_OF[kind]] } });
    });
    this.cache.forget(scope.route.tenant, `s:${sectorId}`);
  }

  /** The image at its public address; an unknown sector, image or version answers alike. */
  async read(sectorId: string, assetName: string, version: string): Promise<Pick<SectorAssetEntity, 'bytes' | 'contentType'>> {
    const kind = assetOf(assetName);
    const route = await this.directory.routeSector(sectorId).catch((err: unknown) => {
      if (err instanceof DomainError && (err.reason === Reason.SECTOR_NOT_FOUND || err.reason === Reason.VALIDATION_FAILED)) throw assetNotFound();
      throw err;
    });
    const found = await this.assets.find((await this.scopes.of(route)).db, sectorId, kind, version);
    if (!found) throw assetNotFound();
    return found;
  }
}
