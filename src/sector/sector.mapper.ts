import { SectorResponse } from './dto/sector.dto';
import { SectorSummary } from './sector.entity';

export function toSectorResponse(s: SectorSummary): SectorResponse {
  return {
    sectorID: s.id,
    name: s.name,
    domain: s.domain,
    isDefault: s.isDefault,
    allowedOrigins: s.allowedOrigins ?? [],
    slug: s.slug,
  };
}
