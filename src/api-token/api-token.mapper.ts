import { unixSeconds } from '../common/wire/wire';
import { ApiTokenResponse } from './dto/api-token.dto';
import { ApiTokenEntity } from './api-token.entity';

export function toApiTokenResponse(t: ApiTokenEntity): ApiTokenResponse {
  return {
    id: t.id,
    name: t.name,
    sectorID: t.sectorId,
    prefix: t.prefix,
    createdAt: unixSeconds(t.createdAt),
    lastUsedAt: unixSeconds(t.lastUsedAt),
  };
}
