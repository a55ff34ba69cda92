import { Injectable } from '@nestjs/common';
import { translatingUniqueViolations } from '../common/errors/db-errors';
import { DomainError } from '../common/errors/domain-error';
import { Reason } from '../common/errors/error-codes';
import { TenantDb } from '../tenancy/tenant-db';
import { Paging } from '../common/wire/paging';
import { UserSort } from './dto/user.dto';
import { countFromCounters, REVERSE_FROM_OFFSET, UserFilter, UserListRow, UserListSpec, userCountSql, userPageSql } from './user-list.query';
import { UserEntity } from './user.entity';

export interface UserAuthState {
  id: string;
  sectorId: string;
  username: string;
  isAdmin: boolean;
  credentialVersion: number;
  keptTokenJti: string | null;
  credentialsChangedAt: Date | null;
  /** Disabled by an admin: none of the user's tokens is accepted. */
  disabled: boolean;
  /** The names of the roles the user holds, sorted. */
  roles: string[];
  /** The union of those roles' permissions, sorted. */
  permissions: string[];
  /** For a token of a session (`sid`): whether that session exists for this user and was not revoked; null without a session. */
  sessionLive: boolean | null;
  /** That session's end of life; null without a session. See `sessionActive()`. */
  sessionExpiresAt: Date | null;
}

export type { UserFilter } from './user-list.query';

/** What a user holds in the sector's apps: role names and the union of their permissions, both sorted. */
export interface UserGrants {
  roles: string[];
  permissions: string[];
}

/** A user's grants as two columns (`roles`, `permissions`) of a query over `users u`. */
const USER_GRANTS = `
  ARRAY(SELECT r.name FROM user_roles ur JOIN roles r ON r.id = ur.role_id WHERE ur.user_id = u.id ORDER BY r.name COLLATE "C") AS roles,
  ARRAY(SELECT DISTINCT p COLLATE "C" FROM user_roles ur JOIN roles r ON r.id = ur.role_id CROSS JOIN unnest(r.permissions) p
         WHERE ur.user_id = u.id ORDER BY 1) AS permissions`;

/** The unique indexes that keep logins unambiguous, and what a violation of each means. */
const LOGIN_CONSTRAINTS = {
  users_sector_username_key: () => DomainError.alreadyExists(Reason.USERNAME_TAKEN, 'That username is already used in this sector.'),
  users_sector_email_key: () => DomainError.alreadyExists(Reason.EMAIL_TAKEN, 'That email is already used in this sector.'),
};

/** The account links mailed to a user's address: they die when the address changes. */
const LINKS_TO_THE_ADDRESS = ['password-reset', 'magic-link', 'email-verification', 'email-change'];

/** Users of a tenant; every method takes the tenant's database handle first. */
@Injectable()
export class UserRepository {
  async findById(db: TenantDb, id: string): Promise<UserEntity | null> {
    return (await db.findEntities(UserEntity, 'id = $1', [id]))[0] ?? null;
  }

  /**
   * What authorisation needs of a user, by id: one indexed read, no ORM
   * hydration (this runs on every authenticated request).
   */
  async findAuthState(db: TenantDb, id: string, sessionId?: string): Promise<UserAuthState | null> {
    const rows = await db.read<UserAuthState>(
      `SELECT u.id, u.sector_id AS "sectorId", u.username, u.is_admin AS "isAdmin", u.credential_version AS "credentialVersion",
              u.kept_token_jti AS "keptTokenJti", u.credentials_changed_at AS "credentialsChangedAt", u.disabled_at IS NOT NULL AS disabled,
              ${USER_GRANTS},
              CASE WHEN $2::uuid IS NULL THEN NULL ELSE (s.id IS NOT NULL AND s.revoked_at IS NULL) END AS "sessionLive",
              s.expires_at AS "sessionExpiresAt"
         FROM users u LEFT JOIN sessions s ON s.id = $2::uuid AND s.user_id = u.id
        WHERE u.id = $1`,
      [id, sessionId ?? null],
    );
    return rows[0] ?? null;
  }

  /** Locks the user's row for the rest of the caller's transaction; its sector and admin flag, or null when there is no such user. */
  async lock(db: TenantDb, id: string): Promise<{ sectorId: string; isAdmin: boolean } | null> {
    const rows = await db.rows<{ sectorId: string; isAdmin: boolean }>('SELECT sector_id AS "sectorId", is_admin AS "isAdmin" FROM users WHERE id = $1 FOR UPDATE', [id]);
    return rows[0] ?? null;
  }

  /** Which of these ids are users of the sector (and whether each is an admin), kept from deletion until the caller's transaction ends. */
  async lockMembers(db: TenantDb, sectorId: string, ids: string[]): Promise<Array<{ id: string; isAdmin: boolean }>> {
    return db.rows('SELECT id, is_admin AS "isAdmin" FROM users WHERE sector_id = $1 AND id = ANY($2::uuid[]) FOR KEY SHARE', [sectorId, ids]);
  }

  /** The user's roles and permissions as stored now (none for an unknown user). */
  async grantsOf(db: TenantDb, id: string): Promise<UserGrants> {
    const rows = await db.read<UserGrants>(`SELECT ${USER_GRANTS} FROM users u WHERE u.id = $1`, [id]);
    return rows[0] ?? { roles: [], permissions: [] };
  }

  /** The user of `sectorId` whose username or email equals `login`, case-insensitively. */
  findByLogin(db: TenantDb, sectorId: string, login: string): Promise<UserEntity | null> {
    return db.manager
      .getRepository(UserEntity)
      .createQueryBuilder('u')
      .where('u.sector_id = :sectorId', { sectorId })
      .andWhere("(lower(u.username) = lower(:login) OR (u.email <> '' AND lower(u.email) = lower(:login)))", { login })
      .orderBy('lower(u.username) = lower(:login)', 'DESC')
      .limit(1)
      .getOne();
  }

  /** Inserts a user; a taken username or email is ALREADY_EXISTS. */
  async insert(db: TenantDb, user: UserEntity): Promise<void> {
    await translatingUniqueViolations(() => db.manager.getRepository(UserEntity).insert(user as never), LOGIN_CONSTRAINTS);
  }

  /**
   * Serialises the writes that keep logins unambiguous in a sector (a username may
   * not equal another user's email), for the rest of the caller's transaction.
   */
  async lockSectorLogins(db: TenantDb, sectorId: string): Promise<void> {
    await db.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('user-logins:' || $1, 0))`, [sectorId]);
  }

  /** Another user of the sector whose username or email equals one of `logins` (case-insensitive). */
  async loginTaken(db: TenantDb, sectorId: string, logins: string[], exceptUserId?: string): Promise<boolean> {
    const rows = await db.manager.query(
      `SELECT 1 FROM users WHERE sector_id = $1 AND id IS DISTINCT FROM $3
       AND (lower(username) = ANY($2) OR (email <> '' AND lower(email) = ANY($2))) LIMIT 1`,
      [sectorId, logins.map((l) => l.toLowerCase()), exceptUserId ?? null],
    );
    return rows.length > 0;
  }

  /**
   * Applies `patch` in one UPDATE; a taken username or email is ALREADY_EXISTS.
   * When the patch changes the email (case-insensitively), what was mailed to the
   * old address dies with it, in the caller's transaction: the user's
   * password-reset, magic-link, email-verification and email-change links, and a
   * pending invitation's link (an admin resends it to the new address).
   */
  async update(db: TenantDb, id: string, patch: Partial<UserEntity>): Promise<void> {
    const query = db.manager.createQueryBuilder().update(UserEntity);
    if (patch.email !== undefined) {
      await db.manager.query(
        `DELETE FROM account_links l USING users u
          WHERE u.id = $1 AND l.user_id = u.id AND l.kind = ANY($3) AND lower(u.email) <> lower($2)`,
        [id, patch.email, LINKS_TO_THE_ADDRESS],
      );
    }
    const set: Record<string, unknown> = { ...patch, updatedAt: () => 'now()' };
    if (patch.email !== undefined && patch.inviteTokenHash === undefined) {
      set.inviteTokenHash = () => 'CASE WHEN lower(email) <> lower(:newEmail) THEN NULL ELSE invite_token_hash END';
      query.setParameter('newEmail', patch.email);
    }
    await translatingUniqueViolations(() => query.set(set as never).where('id = :id', { id }).execute(), LOGIN_CONSTRAINTS);
  }

  /**
   * Locks the user's row for the rest of the caller's transaction and answers
   * whether the user can sign in some way already: a password, a verified
   * one-time-code factor, a passkey or a linked identity (only a pending
   * invitation has none).
   */
  async lockAndHasSignInMethod(db: TenantDb, id: string): Promise<boolean> {
    const [row] = await db.rows<{ has: boolean }>(
      `SELECT (u.password_hash IS NOT NULL
               OR EXISTS (SELECT 1 FROM otp_registrations o WHERE o.user_id = u.id AND o.verified_at IS NOT NULL)
               OR EXISTS (SELECT 1 FROM webauthn_credentials w WHERE w.user_id = u.id)
               OR EXISTS (SELECT 1 FROM linked_identities li WHERE li.user_id = u.id)) AS has
         FROM users u WHERE u.id = $1 FOR UPDATE OF u`,
      [id],
    );
    return row?.has ?? false;
  }

  /** The address of the user's unexpired email-change link ('' when none): what waits for confirmation. */
  async pendingEmail(db: TenantDb, id: string): Promise<string> {
    const rows = await db.read<{ email: string }>(
      `SELECT email FROM account_links WHERE user_id = $1 AND kind = 'email-change' AND expires_at > now()`,
      [id],
    );
    return rows[0]?.email ?? '';
  }

  /**
   * Removes the passkeys and one-time-code factors (verified or not) the user
   * added in the last `hours` hours; answers how many of each. A password reset
   * does this: a factor added by whoever held the account briefly must not outlive
   * the owner's recovery.
   */
  async removeRecentFactors(db: TenantDb, id: string, hours: number): Promise<{ passkeys: number; oneTimeCodeFactors: number }> {
    const [row] = await db.rows<{ passkeys: number; oneTimeCodeFactors: number }>(
      `WITH w AS (DELETE FROM webauthn_credentials WHERE user_id = $1 AND created_at > now() - make_interval(hours => $2) RETURNING 1),
            o AS (DELETE FROM otp_registrations WHERE user_id = $1 AND created_at > now() - make_interval(hours => $2) RETURNING 1)
       SELECT (SELECT count(*) FROM w)::int AS passkeys, (SELECT count(*) FROM o)::int AS "oneTimeCodeFactors"`,
      [id, hours],
    );
    return row;
  }

  async delete(db: TenantDb, id: string): Promise<boolean> {
    const result = await db.manager.getRepository(UserEntity).delete({ id });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Disables or enables a user in one statement. Disabling revokes every session
   * (with its access and refresh tokens) and the user's password-reset and
   * magic-link links, and raises the credential version (session-less tokens stop
   * too). Either way the version goes up, so every instance's cached state of the
   * user is dropped at commit. False when the user was already in that state.
   */
  async setDisabled(db: TenantDb, id: string, disabled: boolean): Promise<boolean> {
    const rows = await db.rows(
      disabled
        ? `WITH revoked AS (UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL RETURNING id),
                links AS (DELETE FROM account_links WHERE user_id = $1 AND kind IN ('password-reset', 'magic-link') RETURNING 1)
           UPDATE users SET disabled_at = now(), credential_version = credential_version + 1, kept_token_jti = NULL, updated_at = now()
            WHERE id = $1 AND disabled_at IS NULL RETURNING id`
        : `UPDATE users SET disabled_at = NULL, credential_version = credential_version + 1, updated_at = now() WHERE id = $1 AND disabled_at IS NOT NULL RETURNING id`,
      [id],
    );
    return rows.length > 0;
  }

  /** Locks the enabled admin rows of a sector for the rest of the transaction and returns their ids. */
  async lockAdmins(db: TenantDb, sectorId: string): Promise<string[]> {
    const rows: Array<{ id: string }> = await db.manager.query('SELECT id FROM users WHERE sector_id = $1 AND is_admin AND disabled_at IS NULL FOR UPDATE', [sectorId]);
    return rows.map((r) => r.id);
  }

  /**
   * One page of a sector's users and the exact number the list matches
   * (`user-list.query.ts`). An unsearched list answers its page and its count
   * (one row of `user_list_counts`) in one statement, so in one snapshot; a deep
   * page reads that count first to walk the sort index from the nearer end, and
   * is read again should the count have moved meanwhile. A counted search runs
   * beside its page on a second pooled connection — or, with `skipCount`, not at
   * all: the total is then the lower bound the page proves (the users up to its end,
   * plus one when a look-ahead row shows another page follows).
   */
  async list(
    db: TenantDb,
    sectorId: string,
    filter: UserFilter,
    sort: UserSort,
    desc: boolean,
    p: Paging,
    skipCount = false,
  ): Promise<{ items: UserListRow[]; total: number }> {
    const spec: UserListSpec = { sectorId, filter, sort, desc, paging: p };
    const countSql = userCountSql(spec);
    if (!countFromCounters(filter) && skipCount) {
      const page = userPageSql(spec, { lookAhead: true });
      const rows = await db.read<UserListRow>(page.sql, page.params);
      // An empty page past the start proves nothing: count then.
      if (rows.length > 0 || p.offset === 0) {
        const items = rows.slice(0, p.pageSize);
        return { items, total: p.offset + items.length + (rows.length > p.pageSize ? 1 : 0) };
      }
    }
    if (!countFromCounters(filter)) {
      const page = userPageSql(spec);
      const [[{ n }], items] = await Promise.all([db.read<{ n: number }>(countSql.sql, countSql.params), db.read<UserListRow>(page.sql, page.params)]);
      return { items, total: n };
    }
    let known: number | undefined;
    if (p.offset >= REVERSE_FROM_OFFSET) {
      [{ n: known }] = await db.read<{ n: number }>(countSql.sql, countSql.params);
      if (p.offset >= known) return { items: [], total: known };
    }
    for (let attempt = 0; ; attempt++) {
      // After two moves of the count in a row, read forwards: right whatever the count.
      const page = userPageSql(spec, { total: attempt < 2 ? known : undefined, withCount: true });
      const rows = await db.read<UserListRow & { total: number; ord: number | null }>(page.sql, page.params);
      const total = rows[0].total;
      if (page.reversed && total !== known) {
        known = total;
        continue;
      }
      return { items: rows.filter((r) => r.ord !== null), total };
    }
  }

  /**
   * Sets a new password hash and revokes what proved the old one, in one
   * statement: every session of the user but `keepSessionId` (the caller's own,
   * on a self-service change) is revoked with its access and refresh tokens; the
   * credential version goes up, so session-less access tokens from before
   * sessions stop working too (except `keepJti`, such a token that made the
   * change); earlier sign-ins stop proving self-access. A pending invitation
   * link and the user's password-reset and magic-link links die too.
   */
  async setPassword(db: TenantDb, id: string, passwordHash: string, keepJti: string | null, keepSessionId: string | null = null): Promise<void> {
    await db.manager.query(
      `WITH revoked AS (
              UPDATE sessions SET revoked_at = now()
               WHERE user_id = $1 AND revoked_at IS NULL AND id IS DISTINCT FROM $4::uuid RETURNING id),
            links AS (DELETE FROM account_links WHERE user_id = $1 AND kind IN ('password-reset', 'magic-link') RETURNING 1)
       UPDATE users SET password_hash = $2, invite_token_hash = NULL, credential_version = credential_version + 1,
              kept_token_jti = $3, credentials_changed_at = now(), updated_at = now()
        WHERE id = $1`,
      [id, passwordHash, keepJti, keepSessionId],
    );
  }

  /** Marks the email verified, only while it is still `email` (case-insensitive); false when it changed meanwhile. */
  async markEmailVerified(db: TenantDb, id: string, email: string): Promise<boolean> {
    const rows = await db.rows(
      `UPDATE users SET email_verified = true, updated_at = now() WHERE id = $1 AND email <> '' AND lower(email) = lower($2) RETURNING id`,
      [id, email],
    );
    return rows.length > 0;
  }

  /**
   * Locks the user's row for the rest of the caller's transaction and counts the
   * second factors they would have left without the excluded one (verified
   * one-time-code registrations and passkeys): removals serialise on the lock, so
   * two concurrent removals cannot each leave the other as the last factor.
   */
  async lockAndCountSecondFactors(db: TenantDb, userId: string, excluding: { otpRegistrationId?: string; webauthnCredentialId?: string }): Promise<number> {
    await db.manager.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
    const [row] = await db.rows<{ n: number }>(
      `SELECT (SELECT count(*) FROM webauthn_credentials WHERE user_id = $1 AND credential_id IS DISTINCT FROM $2)::int
            + (SELECT count(*) FROM otp_registrations WHERE user_id = $1 AND verified_at IS NOT NULL AND id IS DISTINCT FROM $3::uuid)::int AS n`,
      [userId, excluding.webauthnCredentialId ?? null, excluding.otpRegistrationId ?? null],
    );
    return row?.n ?? 0;
  }

  /** The user whose pending invitation has this token hash. */
  findByInviteHash(db: TenantDb, tokenHash: string): Promise<UserEntity | null> {
    return db.manager.getRepository(UserEntity).findOneBy({ inviteTokenHash: tokenHash });
  }

  /**
   * Accepts an invitation in one conditional UPDATE: only while it is pending and
   * unexpired, so a link works once. The link was mailed to the address, so it is
   * marked verified; like any password set, the user's password-reset and
   * magic-link links die. Returns the user id, or undefined.
   */
  async acceptInvite(db: TenantDb, tokenHash: string, passwordHash: string): Promise<string | undefined> {
    const [first] = await db.rows<{ id: string }>(
      `WITH accepted AS (
              UPDATE users SET password_hash = $2, email_verified = true, invite_accepted_at = now(), invite_token_hash = NULL, updated_at = now()
               WHERE invite_token_hash = $1 AND invite_accepted_at IS NULL AND invite_expires_at > now() AND disabled_at IS NULL
               RETURNING id),
            links AS (DELETE FROM account_links WHERE user_id IN (SELECT id FROM accepted) AND kind IN ('password-reset', 'magic-link') RETURNING 1)
       SELECT id FROM accepted`,
      [tokenHash, passwordHash],
    );
    return first?.id;
  }

  async counts(db: TenantDb): Promise<{ userCount: number; adminCount: number; pendingInviteCount: number }> {
    const [row] = await db.manager.query(
      `SELECT count(*)::int AS "userCount", count(*) FILTER (WHERE is_admin)::int AS "adminCount",
              count(*) FILTER (WHERE invite_accepted_at IS NULL AND invite_expires_at > now())::int AS "pendingInviteCount"
       FROM users`,
    );
    return row;
  }
}

/** Whether the session of a token is live now: not revoked and not past its end of life. */
export function sessionActive(state: UserAuthState, now = Date.now()): boolean {
  return state.sessionLive === true && state.sessionExpiresAt !== null && new Date(state.sessionExpiresAt).getTime() > now;
}
