import { Injectable } from '@nestjs/common';
import { TenantDb } from '../../tenancy/tenant-db';
import { AuthTransactionEntity, TransactionStatus } from './auth-transaction.entity';

export type TransactionChange = Partial<
  Pick<AuthTransactionEntity, 'status' | 'factors' | 'pendingChallenge' | 'attemptsLeft' | 'data' | 'userId'>
> & {
  complete?: boolean;
  /** Consume a pending state (`data[key]`): applies only while its value at `path` is still `equals`, and removes it. */
  consume?: { key: string; path: string; equals: string };
};

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
    const { complete, consume, ...columns } = change;
    const set: Record<string, unknown> = { ...columns };
    if (complete) set.completedAt = () => 'now()';
    if (consume) set.data = () => 'data - CAST(:consumeKey AS text)';
    const qb = db.manager
      .createQueryBuilder()
      .update(AuthTransactionEntity)
      .set(set as never)
      .where('id = :id AND status = :expected AND expires_at > now()', { id, expected });
    if (consume) {
      qb.andWhere('data->CAST(:consumeKey AS text)->>CAST(:consumePath AS text) = :consumeEquals', {
        consumeKey: consume.key,
        consumePath: consume.path,
        consumeEquals: consume.equals,
      });
    }
    const result = await qb.execute();
    return result.affected === 1;
  }

  /**
   * Sets a strategy's pending state (`data[key]`) on a pending transaction (a new
   * begin replaces the previous state, which stops being accepted), and with
   * `pendingChallenge` the challenge the transaction now waits for.
   */
  async setPending(db: TenantDb, id: string, key: string, state: object, pendingChallenge?: string): Promise<boolean> {
    const rows = await db.rows(
      `UPDATE auth_transactions SET data = jsonb_set(data, ARRAY[$3::text], $2::jsonb), pending_challenge = COALESCE($4::text, pending_challenge)
       WHERE id = $1 AND status = 'PENDING' AND expires_at > now() RETURNING id`,
      [id, JSON.stringify(state), key, pendingChallenge ?? null],
    );
    return rows.length > 0;
  }

  /**
   * Claims one code send for a pending transaction: one conditional UPDATE, so a
   * transaction gets at most one code per cooldown. Answers 0 when claimed, else
   * the seconds to wait.
   */
  async claimCodeSend(db: TenantDb, id: string, cooldownSeconds: number): Promise<number> {
    const claimed = await db.rows(
      `UPDATE auth_transactions SET data = jsonb_set(data, '{codeSentAt}', to_jsonb(now()))
       WHERE id = $1 AND status = 'PENDING' AND expires_at > now()
         AND (data->>'codeSentAt' IS NULL OR (data->>'codeSentAt')::timestamptz <= now() - make_interval(secs => $2))
       RETURNING id`,
      [id, cooldownSeconds],
    );
    if (claimed.length > 0) return 0;
    const [row] = await db.rows<{ wait: number }>(
      `SELECT extract(epoch FROM (data->>'codeSentAt')::timestamptz + make_interval(secs => $2) - now())::float8 AS wait
         FROM auth_transactions WHERE id = $1`,
      [id, cooldownSeconds],
    );
    return Math.max(1, Number(row?.wait ?? cooldownSeconds));
  }

  /**
   * Uses up one wrong-code attempt; the last one kills the transaction (FAILED).
   * Returns the attempts left, or -1 when none was left to use.
   */
  async spendAttempt(db: TenantDb, id: string): Promise<number> {
    const [row] = await db.rows<{ attempts_left: number }>(
      `UPDATE auth_transactions SET attempts_left = attempts_left - 1,
         status = CASE WHEN attempts_left <= 1 THEN 'FAILED' ELSE status END
       WHERE id = $1 AND status = 'PENDING' AND attempts_left > 0 RETURNING attempts_left`,
      [id],
    );
    return row ? row.attempts_left : -1;
  }

  /**
   * Claims the OAuth state (the transaction's id) of a pending social flow (`data.oauth`, for this
   * provider): one conditional UPDATE that removes the state and the PKCE
   * verifier and nonce, and answers what `data.oauth` held, so a callback's state
   * works once — a replay, or a callback racing it, finds nothing. The
   * verifier hash and the return page stay for the result.
   */
  async claimOAuthState(db: TenantDb, state: string, provider: string, kinds: readonly string[]): Promise<Record<string, unknown> | undefined> {
    const [row] = await db.rows<{ oauth: Record<string, unknown> }>(
      `WITH old AS (SELECT id, data->'oauth' AS oauth FROM auth_transactions WHERE id = $1 FOR UPDATE)
       UPDATE auth_transactions t SET data = jsonb_set(t.data, '{oauth}', (t.data->'oauth') - 'state' - 'codeVerifier' - 'nonce') FROM old
       WHERE t.id = old.id AND t.data->'oauth'->>'state' = $1 AND t.kind = ANY($3::text[]) AND t.status = 'PENDING' AND t.expires_at > now()
         AND t.data->'oauth'->>'provider' = $2
       RETURNING old.oauth AS oauth`,
      [state, provider, kinds],
    );
    return row?.oauth ?? undefined;
  }

  /**
   * Keeps the (sealed) result of a social flow on its transaction for the
   * exchange, with the hash of the single-use code the browser is sent back with
   * (`data.oauth.result`, `data.oauth.codeHash`). `complete` also marks the
   * transaction completed (a link flow, which no sign-in step follows).
   */
  async setSocialResult(db: TenantDb, id: string, sealed: string, codeHash: string, complete = false): Promise<void> {
    await db.manager.query(
      `UPDATE auth_transactions SET data = jsonb_set(data, '{oauth}', (data->'oauth') || jsonb_build_object('result', $2::text, 'codeHash', $3::text)),
         status = CASE WHEN $4 THEN 'SUCCESS' ELSE status END, completed_at = CASE WHEN $4 THEN now() ELSE completed_at END
       WHERE id = $1 AND data ? 'oauth'`,
      [id, sealed, codeHash, complete],
    );
  }

  /**
   * Takes the result of a social flow once: one conditional UPDATE that matches
   * the code's hash AND the verifier's hash and removes the result and the code,
   * so a wrong verifier changes nothing (the code stays usable by the browser
   * that holds both) and a right pair works once. Within `maxAgeSeconds` of a
   * completed transaction's completion, or before a pending one's expiry (a
   * second factor follows). Answers the sealed result and the transaction.
   */
  async takeSocialResult(
    db: TenantDb,
    codeHash: string,
    verifierHash: string,
    kinds: readonly string[],
    maxAgeSeconds: number,
  ): Promise<{ sealed: string; id: string; kind: string } | undefined> {
    const [row] = await db.rows<{ sealed: string; id: string; kind: string }>(
      `WITH old AS (SELECT id, data->'oauth'->>'result' AS sealed FROM auth_transactions WHERE data->'oauth'->>'codeHash' = $1 FOR UPDATE)
       UPDATE auth_transactions t SET data = jsonb_set(t.data, '{oauth}', (t.data->'oauth') - 'result' - 'codeHash') FROM old
       WHERE t.id = old.id AND t.data->'oauth'->>'codeHash' = $1 AND t.data->'oauth'->>'verifierHash' = $2 AND t.kind = ANY($3::text[])
         AND ((t.status = 'SUCCESS' AND t.completed_at > now() - make_interval(secs => $4)) OR (t.status = 'PENDING' AND t.expires_at > now()))
       RETURNING old.sealed AS sealed, t.id AS id, t.kind AS kind`,
      [codeHash, verifierHash, kinds, maxAgeSeconds],
    );
    return row ?? undefined;
  }

  /**
   * Removes transactions that expired over an hour ago: they can no longer be
   * continued, and a completed one proves self-access for 15 minutes after its
   * completion, which comes before its expiry. Answers how many went.
   */
  async purgeExpired(db: TenantDb): Promise<number> {
    const rows = await db.rows(`DELETE FROM auth_transactions WHERE expires_at < now() - interval '1 hour' RETURNING id`);
    return rows.length;
  }
}
