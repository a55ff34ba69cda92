import { Injectable } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';
import { SectorAssetEntity } from './sector-asset.entity';
import type { BrandAsset } from './image-check';

/** The images of a tenant's sectors, and the versions their settings row points at. */
@Injectable()
export class BrandingRepository {
  /** Stores (or replaces) a sector's image and points its settings at the new version. */
  async put(db: TenantDb, asset: Omit<SectorAssetEntity, 'updatedAt'>): Promise<void> {
    await db.manager.query(
      `INSERT INTO sector_assets (sector_id, kind, content_type, bytes, width, height, version) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (sector_id, kind) DO UPDATE SET content_type = EXCLUDED.content_type, bytes = EXCLUDED.bytes, width = EXCLUDED.width,
         height = EXCLUDED.height, version = EXCLUDED.version, updated_at = now()`,
      [asset.sectorId, asset.kind, asset.contentType, asset.bytes, asset.width, asset.height, asset.version],
    );
    await this.pointSettings(db, asset.sectorId, asset.kind as BrandAsset, asset.version);
  }

  /** Removes a sector's image; false when it had none. */
  async remove(db: TenantDb, sectorId: string, kind: BrandAsset): Promise<boolean> {
    const removed = await db.rows('DELETE FROM sector_assets WHERE sector_id = $1 AND kind = $2 RETURNING kind', [sectorId, kind]);
    if (removed.length === 0) return false;
    await this.pointSettings(db, sectorId, kind, '');
    return true;
  }

  /** The image of that version, if it is the sector's current one. */
  async find(db: TenantDb, sectorId: string, kind: BrandAsset, version: string): Promise<SectorAssetEntity | undefined> {
    return (await db.findEntities(SectorAssetEntity, 'sector_id = $1 AND kind = $2 AND version = $3', [sectorId, kind, version]))[0];
  }

  private async pointSettings(db: TenantDb, sectorId: string, kind: BrandAsset, version: string): Promise<void> {
    const column = kind === 'logo' ? 'brand_logo_version' : 'brand_favicon_version';
    await db.manager.query(`UPDATE sector_settings SET ${column} = $2, updated_at = now() WHERE sector_id = $1`, [sectorId, version]);
  }
}
