import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type TransactionStatus = 'PENDING' | 'SUCCESS' | 'FAILED';

/**
 * An authentication transaction: a sign-in flow kept as a record. It carries
 * the state between the steps of one sign-in: its owner, the factors already
 * satisfied, the pending challenge, the attempts left, and internal data that
 * never leaves the server. Every state change is one conditional UPDATE.
 */
@Entity({ name: 'auth_transactions' })
export class AuthTransactionEntity {
  @PrimaryColumn('text') id: string;
  @Column('text') kind: string;
  @Column('uuid', { name: 'sector_id' }) sectorId: string;
  @Column('uuid', { name: 'user_id', nullable: true }) userId: string | null;
  @Column('text') status: TransactionStatus;
  @Column('text', { array: true }) factors: string[];
  @Column('text', { name: 'pending_challenge' }) pendingChallenge: string;
  @Column('integer', { name: 'attempts_left' }) attemptsLeft: number;
  @Column('jsonb') data: Record<string, unknown>;
  @Column('text', { name: 'client_ip', nullable: true }) clientIp: string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt: Date;
  @Column('timestamptz', { name: 'completed_at', nullable: true }) completedAt: Date | null;
}
