import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'sectors' })
export class SectorEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('text') name: string;
  @Column('text', { default: '' }) domain: string;
  @Column('text') slug: string;
  @Column('boolean', { name: 'is_default', default: false }) isDefault: boolean;
  @Column('text', { name: 'allowed_origins', array: true, default: () => "'{}'" }) allowedOrigins: string[];
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}

/** What the wire shows of a sector (a list reads only these; the timestamps only order it). */
export type SectorSummary = Pick<SectorEntity, 'id' | 'name' | 'domain' | 'slug' | 'isDefault' | 'allowedOrigins'>;
