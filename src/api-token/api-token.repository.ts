import { Injectable } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';
import { ApiTokenEntity } from './api-token.entity';

export interface ApiTokenAuthState {
  id: string;
  sectorId: string;
}

@Injectable()
export class ApiTokenRepository {
  async insert(db: TenantDb, token: ApiTokenEntity): Promise<void> {
    await db.manager.getRepository(ApiTokenEntity).insert(token as never);
  }

  list(db: TenantDb, sectorId: string): Promise<ApiTokenEntity[]> {
    return db.manager.getRepository(ApiTokenEntity).find({ where: { sectorId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  async delete(db: TenantDb, sectorId: string, id: string): Promise<boolean> {
    const result = await db.manager.getRepository(ApiTokenEntity).delete({ id, sectorId });
    return (result.affected ?? 0) > 0;
  }

  /** One indexed read by hash (runs on every request an API token makes). */
  async findByHash(db: TenantDb, tokenHash: string): Promise<ApiTokenAuthState | null> {
    const rows = await db.read<ApiTokenAuthState>('SELECT id, sector_id AS "sectorId" FROM api_tokens WHERE token_hash = $1', [tokenHash]);
    return rows[0] ?? null;
  }

  async touch(db: TenantDb, id: string): Promise<void> {
    await db.manager.query('UPDATE api_tokens SET last_used_at = now() WHERE id = $1', [id]);
  }

  async count(db: TenantDb): Promise<number> {
    return db.manager.getRepository(ApiTokenEntity).count();
  }
}
