import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A provider identity (provider + the provider's subject) linked to a user of a sector: how a social sign-in finds its user. */
@Entity({ name: 'linked_identities' })
export class LinkedIdentityEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid', { name: 'user_id' }) userId: string;
  @Column('uuid', { name: 'sector_id' }) sectorId: string;
  @Column('text') provider: string;
  @Column('text') subject: string;
  /** The email the provider reported when the identity was linked (informational). */
  @Column('text') email: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'last_used_at', nullable: true }) lastUsedAt: Date | null;
}
