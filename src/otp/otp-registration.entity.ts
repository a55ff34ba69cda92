import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type OtpType = 'email' | 'sms' | 'totp';

/**
 * A one-time-code factor of a user. It counts only once verified. Email and SMS
 * registrations carry, while being enrolled, the MAC of the code sent to confirm
 * them; TOTP registrations carry their secret sealed with MASTER_KEY and the last
 * time step accepted (a code is never accepted twice in its step).
 */
@Entity({ name: 'otp_registrations' })
export class OtpRegistrationEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid', { name: 'user_id' }) userId: string;
  @Column('text') type: OtpType;
  @Column('text') destination: string;
  @Column('text', { name: 'secret_sealed', nullable: true }) secretSealed: string | null;
  @Column('timestamptz', { name: 'verified_at', nullable: true }) verifiedAt: Date | null;
  @Column('bigint', { name: 'last_totp_step' }) lastTotpStep: string;
  @Column('text', { name: 'code_mac', nullable: true }) codeMac: string | null;
  @Column('timestamptz', { name: 'code_expires_at', nullable: true }) codeExpiresAt: Date | null;
  @Column('integer', { name: 'code_attempts_left' }) codeAttemptsLeft: number;
  @Column('timestamptz', { name: 'code_sent_at', nullable: true }) codeSentAt: Date | null;
  /** Codes sent this hour window to sign-ins that had no factor yet (capped; an answered code gives its send back). */
  @Column('integer', { name: 'anon_sends' }) anonSends: number;
  @Column('timestamptz', { name: 'anon_window_start', nullable: true }) anonWindowStart: Date | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}
