import { Injectable } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';

/** What a single-use account link does. */
export type AccountLinkKind = 'password-reset' | 'magic-link' | 'email-verification' | 'email-change';

export interface AccountLink {
  userId: string;
  /** The address the link was mailed to. */
  email: string;
  expiresAt: Date;
}

/**
 * Single-use account links (`account_links`): the SHA-256 of a routed token, its
 * kind, user, the address it was sent to and its expiry. A user holds at most one
 * link of each kind (a new one replaces the old, whose link dies); using one
 * deletes it in one statement, so a link works once.
 */
@Injectable()
export class AccountLinkRepository {
  /** Stores a new link of its kind for the user, replacing (killing) any earlier one. */
  async replace(db: TenantDb, kind: AccountLinkKind, userId: string, email: string, tokenHash: string, expiresAt: Date): Promise<void> {
    await db.manager.query(
      `INSERT INTO account_links (token_hash, kind, user_id, email, expires_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (user_id, kind) DO UPDATE SET token_hash = EXCLUDED.token_hash, email = EXCLUDED.email,
              created_at = now(), expires_at = EXCLUDED.expires_at`,
      [tokenHash, kind, userId, email, expiresAt],
    );
  }

  /** The link with this token hash, without using it. */
  async find(db: TenantDb, tokenHash: string, kind: AccountLinkKind): Promise<AccountLink | undefined> {
    const rows = await db.rows<AccountLink>(
      `SELECT user_id AS "userId", email, expires_at AS "expiresAt" FROM account_links WHERE token_hash = $1 AND kind = $2`,
      [tokenHash, kind],
    );
    return rows[0];
  }

  /** Uses the link: deletes it and answers it, only while it is unexpired (and of `userId` when given); undefined otherwise. */
  async consume(db: TenantDb, tokenHash: string, kind: AccountLinkKind, userId?: string): Promise<AccountLink | undefined> {
    const rows = await db.rows<AccountLink>(
      `DELETE FROM account_links WHERE token_hash = $1 AND kind = $2 AND expires_at > now() AND ($3::uuid IS NULL OR user_id = $3::uuid)
       RETURNING user_id AS "userId", email, expires_at AS "expiresAt"`,
      [tokenHash, kind, userId ?? null],
    );
    return rows[0];
  }

  /** Deletes an expired link (so it is refused as expired once, then as unknown). */
  async deleteExpired(db: TenantDb, tokenHash: string): Promise<void> {
    await db.manager.query(`DELETE FROM account_links WHERE token_hash = $1 AND expires_at <= now()`, [tokenHash]);
  }
}
