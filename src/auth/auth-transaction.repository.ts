import { Injectable } from '@nestjs/common';
import { TenantDb } from '../common/tenancy/tenant-db';
import { AuthTransactionEntity, TransactionStatus } from './auth-transaction.entity';

export type TransactionChange = Partial<
  Pick<AuthTransactionEntity, 'status' | 'factors' | 'pendingChallenge' | 'attemptsLeft' | 'data' | 'userId'>
> & { complete?: boolean };

/** Authentication transactions of a tenant. */
@Injectable()
export class AuthTransactionRepository {
  async insert(db: TenantDb, tx: AuthTransactionEntity): Promise<void> {
    await db.manager.getRepository(AuthTransactionEntity).insert(tx as never);
  }

  find(db: TenantDb, id: string): Promise<AuthTransactionEntity | null> {
    return db.manager.getRepository(AuthTransactionEntity).findOneBy({ id });
  }

  /**
   * One conditional UPDATE: applies `change` only while the transaction is still
   * in `expected` state and unexpired. Of two racing requests exactly one gets true.
   */
  async advance(db: TenantDb, id: string, expected: TransactionStatus, change: TransactionChange): Promise<boolean> {
    const { complete, ...columns } = change;
    const set: Record<string, unknown> = { ...columns };
    if (complete) set.completedAt = () => 'now()';
    const result = await db.manager
      .createQueryBuilder()
      .update(AuthTransactionEntity)
      .set(set as never)
      .where('id = :id AND status = :expected AND expires_at > now()', { id, expected })
      .execute();
    return result.affected === 1;
  }

  /** Removes transactions that expired more than a day ago (they no longer prove anything). */
  async purgeExpired(db: TenantDb): Promise<void> {
    await db.manager.query(`DELETE FROM auth_transactions WHERE expires_at < now() - interval '1 day'`);
  }
}
