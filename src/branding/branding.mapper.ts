import { int64 } from '../common/wire/wire';
import { brandAssetUrl } from '../settings/settings.mapper';
import { BrandAssetResponse } from './dto/brand-asset.dto';
import type { BrandAsset } from './image-check';
import { SectorAssetEntity } from './sector-asset.entity';

export function toBrandAssetResponse(asset: Omit<SectorAssetEntity, 'updatedAt'>, publicUrl: string): BrandAssetResponse {
  return {
    sectorID: asset.sectorId,
    asset: asset.kind,
    contentType: asset.contentType,
    bytes: int64(String(asset.bytes.length)),
    width: asset.width,
    height: asset.height,
    url: brandAssetUrl(publicUrl, asset.sectorId, asset.kind as BrandAsset, asset.version),
  };
}
