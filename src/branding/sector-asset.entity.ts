import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** An image a sector's admins uploaded for its pages and mails: its logo or its favicon. */
@Entity({ name: 'sector_assets' })
export class SectorAssetEntity {
  @PrimaryColumn('uuid', { name: 'sector_id' }) sectorId: string;
  @PrimaryColumn('text', { name: 'kind' }) kind: string;
  /** Detected from the bytes, never taken from the uploader. */
  @Column('text', { name: 'content_type' }) contentType: string;
  @Column('bytea', { name: 'bytes' }) bytes: Buffer;
  @Column('integer', { name: 'width' }) width: number;
  @Column('integer', { name: 'height' }) height: number;
  /** A digest of the bytes: part of the image's public address, so a new image gets a new one. */
  @Column('text', { name: 'version' }) version: string;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
