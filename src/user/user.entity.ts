import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid', { name: 'sector_id' }) sectorId: string;
  @Column('text') username: string;
  @Column('text', { default: '' }) email: string;
  @Column('boolean', { name: 'email_verified', default: false }) emailVerified: boolean;
  @Column('text', { default: '' }) name: string;
  /** bcrypt hash; null for a user who has no password (invited, passkey-only, social). */
  @Column('text', { name: 'password_hash', nullable: true }) passwordHash: string | null;
  @Column('boolean', { name: 'is_admin', default: false }) isAdmin: boolean;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
