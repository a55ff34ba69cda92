import { Injectable } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';
import { SectorSettingsEntity } from './sector-settings.entity';

/** Security settings of a tenant's sectors. */
@Injectable()
export class SettingsRepository {
  async find(db: TenantDb, sectorId: string): Promise<SectorSettingsEntity | null> {
    return (await db.findEntities(SectorSettingsEntity, 'sector_id = $1', [sectorId]))[0] ?? null;
  }

  /** A sector's settings row with every default (the column defaults of the migration). */
  async createDefaults(db: TenantDb, sectorId: string): Promise<void> {
    await db.manager.query('INSERT INTO sector_settings (sector_id) VALUES ($1)', [sectorId]);
  }

  /** Applies `patch` in one UPDATE (concurrent updates of different fields both survive) and returns the row. */
  async update(db: TenantDb, sectorId: string, patch: Partial<SectorSettingsEntity>): Promise<SectorSettingsEntity | null> {
    if (Object.keys(patch).length > 0) {
      await db.manager
        .createQueryBuilder()
        .update(SectorSettingsEntity)
        .set({ ...patch, updatedAt: () => 'now()' } as never)
        .where('sector_id = :sectorId', { sectorId })
        .execute();
    }
    return this.find(db, sectorId);
  }
}
