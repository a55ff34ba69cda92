import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A provider identity (the provider's issuer + its subject) linked to a user of
 * a sector: how a social sign-in finds its user. Keyed by issuer, not by the
 * provider's name here, so re-pointing the `oidc` provider at another issuer
 * never hands its subjects the old links.
 */
@Entity({ name: 'linked_identities' })
export class LinkedIdentityEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid', { name: 'user_id' }) userId: string;
  @Column('uuid', { name: 'sector_id' }) sectorId: string;
  @Column('text') provider: string;
  /** The issuer of the provider when the identity was linked (docs/adr/0020-social-login.md). */
  @Column('text') issuer: string;
  @Column('text') subject: string;
  /** The email the provider reported when the identity was linked (informational). */
  @Column('text') email: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'last_used_at', nullable: true }) lastUsedAt: Date | null;
}
