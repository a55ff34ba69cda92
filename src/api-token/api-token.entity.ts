import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A sector API token: only its SHA-256 hash and its first 8 characters are stored. */
@Entity({ name: 'api_tokens' })
export class ApiTokenEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid', { name: 'sector_id' }) sectorId: string;
  @Column('text') name: string;
  @Column('text') prefix: string;
  @Column('text', { name: 'token_hash' }) tokenHash: string;
  @Column('uuid', { name: 'created_by', nullable: true }) createdBy: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'last_used_at', nullable: true }) lastUsedAt: Date | null;
}
