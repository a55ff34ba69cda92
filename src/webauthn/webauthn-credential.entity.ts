import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A passkey (WebAuthn credential) of a user. Every column comes from the
 * verified attestation (or, for the transports, the browser's hint), never from
 * what a client claims about it; the sign counter and the flags move with each
 * verified assertion.
 */
@Entity({ name: 'webauthn_credentials' })
export class WebAuthnCredentialEntity {
  /** The credential ID, base64url (what the browser calls `id`). */
  @PrimaryColumn('text', { name: 'credential_id' }) credentialId: string;
  @Column('uuid', { name: 'user_id' }) userId: string;
  @Column('uuid', { name: 'sector_id' }) sectorId: string;
  /** The COSE public key. */
  @Column('bytea', { name: 'public_key' }) publicKey: Buffer;
  /** The authenticator's signature counter last seen (0 for authenticators that do not count). */
  @Column('bigint', { name: 'sign_count' }) signCount: string;
  @Column('text', { array: true }) transports: string[];
  /** Authenticator model (AAGUID, as a UUID string; all zeros when the authenticator does not say). */
  @Column('text') aaguid: string;
  @Column('text', { name: 'attestation_format' }) attestationFormat: string;
  /** The RP ID the credential was created for. */
  @Column('text', { name: 'rp_id' }) rpId: string;
  /** Backup eligibility (BE flag): a multi-device (synced) passkey. */
  @Column('boolean', { name: 'backup_eligible' }) backupEligible: boolean;
  /** Backup state (BS flag), as last reported. */
  @Column('boolean', { name: 'backed_up' }) backedUp: boolean;
  /** Set when an assertion's counter went backwards: the authenticator may have been cloned. */
  @Column('boolean', { name: 'clone_warning' }) cloneWarning: boolean;
  /**
   * Set with the clone warning when a counter went backwards: while set, every
   * sign-in with the passkey is refused, until a signed-in admin clears it.
   */
  @Column('timestamptz', { name: 'flagged_at', nullable: true }) flaggedAt: Date | null;
  @Column('text', { name: 'key_name' }) keyName: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'last_used_at', nullable: true }) lastUsedAt: Date | null;
}
