import { Injectable } from '@nestjs/common';
import { TenantDb } from '../tenancy/tenant-db';

/** Which audit events a daily figure counts (src/audit: what the sign-in engine and the user service append). */
export type DailyFigure = 'signIns' | 'signInFailures' | 'signUps';

const FIGURE_CONDITIONS: Record<DailyFigure, string> = {
  // Every satisfied factor is a successful step; the one that issued a token says status SUCCESS.
  signIns: `e.type = 'sign_in' AND e.outcome = 'success' AND e.details->>'status' = 'SUCCESS'`,
  signInFailures: `e.type = 'sign_in' AND e.outcome = 'failure'`,
  // A user created without an authenticated caller is a self sign-up (admins, tokens and SCIM are actors).
  signUps: `e.type = 'user.created' AND e.actor_kind = 'anonymous'`,
};

/** A day and its count. */
export interface DayCount {
  day: string;
  n: number;
}

/** Read-only counts over a tenant's `user_list_counts`, `sessions` and `audit_events` for one sector. */
@Injectable()
export class SectorStatsRepository {
  /** The sector's users: the row the user-list triggers keep exact. */
  async countUsers(db: TenantDb, sectorId: string): Promise<number> {
    const rows = await db.read<{ n: number }>(`SELECT COALESCE((SELECT users FROM user_list_counts WHERE sector_id = $1), 0)::int AS n`, [sectorId]);
    return rows[0]?.n ?? 0;
  }

  /** The sector's sessions that are neither revoked nor expired (lifetime or idle timeout) now. */
  async countActiveSessions(db: TenantDb, sectorId: string): Promise<number> {
    const rows = await db.read<{ n: number }>(
      `SELECT count(*)::int AS n FROM sessions
        WHERE sector_id = $1 AND revoked_at IS NULL AND expires_at > now()
          AND last_seen_at + idle_timeout_seconds * interval '1 second' > now()`,
      [sectorId],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * One count per UTC day from `firstDay` to `lastDay` (YYYY-MM-DD, both included),
   * oldest first, every day present: one range scan of the (sector_id, occurred_at)
   * index over the whole period, grouped by day, joined to the series of days.
   */
  async countPerDay(db: TenantDb, sectorId: string, figure: DailyFigure, firstDay: string, lastDay: string): Promise<DayCount[]> {
    return db.read<DayCount>(
      `WITH counted AS (
         SELECT (e.occurred_at AT TIME ZONE 'UTC')::date AS day, count(*) AS n
           FROM audit_events e
          WHERE e.sector_id = $1
            AND e.occurred_at >= ($2::date)::timestamp AT TIME ZONE 'UTC'
            AND e.occurred_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'
            AND ${FIGURE_CONDITIONS[figure]}
          GROUP BY 1
       )
       SELECT to_char(d.day, 'YYYY-MM-DD') AS day, COALESCE(c.n, 0)::int AS n
         FROM generate_series($2::date, $3::date, interval '1 day') AS d(day)
         LEFT JOIN counted c ON c.day = d.day::date
        ORDER BY d.day`,
      [sectorId, firstDay, lastDay],
    );
  }
}
