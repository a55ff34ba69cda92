import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A sign-in session: created by every sign-in that issues a token, named by the
 * access tokens it issues (`sid`) and kept alive by its rotating refresh tokens.
 * Revoking it (logout, the user or an admin, a password change or reset, a reused
 * refresh token) stops its access tokens at once.
 */
@Entity({ name: 'sessions' })
export class SessionEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid', { name: 'user_id' }) userId: string;
  @Column('uuid', { name: 'sector_id' }) sectorId: string;
  @Column('text', { name: 'client_ip', nullable: true }) clientIp: string | null;
  @Column('text', { name: 'user_agent', default: '' }) userAgent: string;
  @Column('timestamptz', { name: 'created_at' }) createdAt: Date;
  @Column('timestamptz', { name: 'last_seen_at' }) lastSeenAt: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt: Date;
  @Column('bigint', { name: 'idle_timeout_seconds' }) idleTimeoutSeconds: string;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt: Date | null;
  /** How the sign-in that started it authenticated the user (RFC 8176 references: `pwd`, `otp`, `hwk`, `fed`, `mfa`). */
  @Column('text', { array: true, default: () => "'{}'" }) amr: string[];
}
