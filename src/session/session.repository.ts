import { Injectable } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';
import { SessionEntity } from './session.entity';

export interface SessionRow {
  id: string;
  userId: string;
  sectorId: string;
  clientIp: string | null;
  userAgent: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  /** How its sign-in authenticated the user (RFC 8176). */
  amr: string[];
  /** The idle timeout copied from the settings at sign-in (seconds). */
  idleTimeoutSeconds: number;
  /** Past its lifetime or its idle timeout. */
  expired: boolean;
}

const COLUMNS = `id, user_id AS "userId", sector_id AS "sectorId", client_ip AS "clientIp", user_agent AS "userAgent",
  created_at AS "createdAt", last_seen_at AS "lastSeenAt", expires_at AS "expiresAt", revoked_at AS "revokedAt", amr,
  idle_timeout_seconds::int AS "idleTimeoutSeconds",
  (expires_at <= now() OR last_seen_at + idle_timeout_seconds * interval '1 second' <= now()) AS expired`;

/** Sessions and their refresh tokens (tables `sessions`, `refresh_tokens`) of a tenant. */
@Injectable()
export class SessionRepository {
  async insert(db: TenantDb, session: Omit<SessionEntity, 'createdAt' | 'lastSeenAt' | 'revokedAt'>, refreshTokenHash: string): Promise<void> {
    await db.manager.query(
      `WITH s AS (INSERT INTO sessions (id, user_id, sector_id, client_ip, user_agent, expires_at, idle_timeout_seconds, amr)
                  VALUES ($1, $2, $3, $4, $5, $6, $7, $9) RETURNING id)
       INSERT INTO refresh_tokens (token_hash, session_id) SELECT $8, id FROM s`,
      [session.id, session.userId, session.sectorId, session.clientIp, session.userAgent, session.expiresAt, session.idleTimeoutSeconds, refreshTokenHash, session.amr],
    );
  }

  async find(db: TenantDb, id: string): Promise<SessionRow | null> {
    const rows = await db.rows<SessionRow>(`SELECT ${COLUMNS} FROM sessions WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** A user's sessions that are neither revoked nor expired, newest first. */
  listActive(db: TenantDb, userId: string): Promise<SessionRow[]> {
    return db.rows<SessionRow>(
      `SELECT ${COLUMNS} FROM sessions
        WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()
          AND last_seen_at + idle_timeout_seconds * interval '1 second' > now()
        ORDER BY created_at DESC, id`,
      [userId],
    );
  }

  /** Marks a refresh token used, once: the session it belongs to, or undefined when it is unknown or already used. */
  async useRefreshToken(db: TenantDb, tokenHash: string): Promise<string | undefined> {
    const rows = await db.rows<{ sessionId: string }>(
      `UPDATE refresh_tokens SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL RETURNING session_id AS "sessionId"`,
      [tokenHash],
    );
    return rows[0]?.sessionId;
  }

  /** Whose session an unused refresh token belongs to (a read: nothing is spent); undefined when it is unknown or used. */
  async ownerOfRefreshToken(db: TenantDb, tokenHash: string): Promise<{ sessionId: string; userId: string; sectorId: string } | undefined> {
    const rows = await db.rows<{ sessionId: string; userId: string; sectorId: string }>(
      `SELECT s.id AS "sessionId", s.user_id AS "userId", s.sector_id AS "sectorId" FROM refresh_tokens r JOIN sessions s ON s.id = r.session_id
       WHERE r.token_hash = $1 AND r.used_at IS NULL`,
      [tokenHash],
    );
    return rows[0];
  }

  /** The session of a refresh token that was already used (a replay), if it is one. */
  async sessionOfUsedRefreshToken(db: TenantDb, tokenHash: string): Promise<string | undefined> {
    const rows = await db.rows<{ sessionId: string }>(
      `SELECT session_id AS "sessionId" FROM refresh_tokens WHERE token_hash = $1 AND used_at IS NOT NULL`,
      [tokenHash],
    );
    return rows[0]?.sessionId;
  }

  /** Adds the session's next refresh token and notes the session as seen now. */
  async rotate(db: TenantDb, sessionId: string, newTokenHash: string, clientIp: string | null): Promise<void> {
    await db.manager.query(
      `WITH t AS (INSERT INTO refresh_tokens (token_hash, session_id) VALUES ($2, $1))
       UPDATE sessions SET last_seen_at = now(), client_ip = COALESCE($3, client_ip) WHERE id = $1`,
      [sessionId, newTokenHash, clientIp],
    );
  }

  /** Revokes a session (of `userId` when given); answers whose it was, undefined when there is no such live session. */
  async revoke(db: TenantDb, sessionId: string, userId?: string): Promise<{ userId: string; sectorId: string } | undefined> {
    const [row] = await db.rows<{ userId: string; sectorId: string }>(
      `UPDATE sessions SET revoked_at = now() WHERE id = $1 AND ($2::uuid IS NULL OR user_id = $2::uuid) AND revoked_at IS NULL
       RETURNING user_id AS "userId", sector_id AS "sectorId"`,
      [sessionId, userId ?? null],
    );
    return row;
  }

  /** Removes sessions (and their refresh tokens) that expired or were revoked over a day ago. */
  async purgeExpired(db: TenantDb): Promise<number> {
    const rows = await db.rows(
      `DELETE FROM sessions
        WHERE expires_at < now() - interval '1 day'
           OR revoked_at < now() - interval '1 day'
           OR last_seen_at + idle_timeout_seconds * interval '1 second' < now() - interval '1 day'
        RETURNING id`,
    );
    return rows.length;
  }
}
