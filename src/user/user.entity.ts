import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export interface UserAddress {
  formatted?: string;
  streetAddress?: string;
  locality?: string;
  region?: string;
  postalCode?: string;
  country?: string;
}

@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid', { name: 'sector_id' }) sectorId: string;
  @Column('text') username: string;
  @Column('text', { default: '' }) email: string;
  @Column('boolean', { name: 'email_verified', default: false }) emailVerified: boolean;
  /**
   * The email is one a signed-in admin of the sector set (at creation or later); any
   * other change of the address clears it. Internal: recovery links go only to an
   * address that is verified or admin-set.
   */
  @Column('boolean', { name: 'email_admin_set', default: false }) emailAdminSet: boolean;
  @Column('text', { default: '' }) name: string;
  /** bcrypt hash; null for a user who has no password (invited, passkey-only, social). */
  @Column('text', { name: 'password_hash', nullable: true }) passwordHash: string | null;
  @Column('boolean', { name: 'is_admin', default: false }) isAdmin: boolean;
  @Column('text', { name: 'given_name', default: '' }) givenName: string;
  @Column('text', { name: 'family_name', default: '' }) familyName: string;
  @Column('text', { name: 'middle_name', default: '' }) middleName: string;
  @Column('text', { default: '' }) nickname: string;
  @Column('text', { name: 'preferred_username', default: '' }) preferredUsername: string;
  @Column('text', { default: '' }) profile: string;
  @Column('text', { default: '' }) picture: string;
  @Column('text', { default: '' }) website: string;
  @Column('text', { default: '' }) gender: string;
  @Column('text', { default: '' }) birthdate: string;
  @Column('text', { default: '' }) zoneinfo: string;
  @Column('text', { default: '' }) locale: string;
  @Column('text', { name: 'phone_number', default: '' }) phoneNumber: string;
  @Column('boolean', { name: 'phone_number_verified', default: false }) phoneNumberVerified: boolean;
  @Column('jsonb', { default: {} }) address: UserAddress;
  /** SHA-256 of the pending invitation's token; null when none is pending. */
  @Column('text', { name: 'invite_token_hash', nullable: true }) inviteTokenHash: string | null;
  @Column('timestamptz', { name: 'invite_expires_at', nullable: true }) inviteExpiresAt: Date | null;
  @Column('timestamptz', { name: 'invite_accepted_at', nullable: true }) inviteAcceptedAt: Date | null;
  /** Raised by every password change: access tokens issued under an older version stop working. */
  @Column('integer', { name: 'credential_version', default: 0 }) credentialVersion: number;
  /** The one access token (its jti) that survived the latest password change: the session that made it. */
  @Column('text', { name: 'kept_token_jti', nullable: true }) keptTokenJti: string | null;
  /** When the password last changed: sign-ins completed before it no longer prove self-access. */
  @Column('timestamptz', { name: 'credentials_changed_at', nullable: true }) credentialsChangedAt: Date | null;
  /** When an admin disabled the user (null: enabled): no sign-in, no live session. */
  @Column('timestamptz', { name: 'disabled_at', nullable: true }) disabledAt: Date | null;
  /** The provisioning directory's own id for the user (SCIM `externalId`); null when none sent one. */
  @Column('text', { name: 'external_id', nullable: true }) externalId: string | null;
  /** SCIM attributes without a column of their own, as the directory sent them (tenant migration Scim). */
  @Column('jsonb', { default: {} }) scim: Record<string, unknown>;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
}
