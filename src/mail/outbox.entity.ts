import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type OutboxChannel = 'email' | 'sms';
export type OutboxStatus = 'pending' | 'sent';

/**
 * One mail or SMS waiting in (or delivered from) a tenant's outbox. Written in
 * the transaction of the change that caused it; the outbox worker claims due
 * rows by setting `lockedUntil` (a lease) and marks them sent or reschedules
 * them with backoff. For an SMS, `bodyText` is the message and `subject` and
 * `bodyHtml` are empty. Bodies are cleared once the row is sent.
 */
@Entity({ name: 'outbox' })
export class OutboxEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('text') channel: OutboxChannel;
  /** What the message is for (`invite`, `otp`, `password-reset`, ...): for logs and tests. */
  @Column('text') tag: string;
  @Column('text') recipient: string;
  @Column('text') subject: string;
  @Column('text', { name: 'body_text' }) bodyText: string;
  @Column('text', { name: 'body_html' }) bodyHtml: string;
  @Column('text') status: OutboxStatus;
  @Column('integer') attempts: number;
  @Column('timestamptz', { name: 'next_attempt_at' }) nextAttemptAt: Date;
  @Column('timestamptz', { name: 'locked_until', nullable: true }) lockedUntil: Date | null;
  @Column('text', { name: 'last_error' }) lastError: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'sent_at', nullable: true }) sentAt: Date | null;
}
