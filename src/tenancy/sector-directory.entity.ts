import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Main-database routing entry: which tenant a sector belongs to (the tenant database is the truth). */
@Entity({ name: 'sector_directory' })
export class SectorDirectoryEntity {
  @PrimaryColumn('uuid', { name: 'sector_id' }) sectorId: string;
  @Column('uuid', { name: 'tenant_id' }) tenantId: string;
  @Column('text') slug: string;
  @Column('text') name: string;
  @Column('boolean', { name: 'is_default' }) isDefault: boolean;
  /** The sector's allowed origins (what CORS answers for); null until copied from a tenant database that predates the column. */
  @Column('text', { name: 'allowed_origins', array: true, nullable: true }) allowedOrigins: string[] | null;
}
