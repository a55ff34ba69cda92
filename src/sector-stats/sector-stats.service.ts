import { Injectable } from '@nestjs/common';
import { SectorScope } from '../settings/sector-scope';
import { SectorStatsResponse, STATS_DAYS_DEFAULT } from './dto/sector-stats.dto';
import { DayCount, SectorStatsRepository } from './sector-stats.repository';

const DAY_MS = 86_400_000;

/** The UTC day of a time, YYYY-MM-DD. */
function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** A sector's figures for its dashboard: users and live sessions now, sign-in activity per UTC day. */
@Injectable()
export class SectorStatsService {
  constructor(private readonly stats: SectorStatsRepository) {}

  async read(scope: SectorScope, days: number = STATS_DAYS_DEFAULT): Promise<SectorStatsResponse> {
    const { db } = scope;
    const sectorId = scope.route.sectorId;
    // The period is fixed once, so that every figure counts the same days.
    const now = Date.now();
    const lastDay = utcDay(now);
    const firstDay = utcDay(now - (days - 1) * DAY_MS);
    const [users, activeSessions, signIns, signInFailures, signUps] = await Promise.all([
      this.stats.countUsers(db, sectorId),
      this.stats.countActiveSessions(db, sectorId),
      this.stats.countPerDay(db, sectorId, 'signIns', firstDay, lastDay),
      this.stats.countPerDay(db, sectorId, 'signInFailures', firstDay, lastDay),
      this.stats.countPerDay(db, sectorId, 'signUps', firstDay, lastDay),
    ]);
    const byDay = (rows: DayCount[]) => new Map(rows.map((r) => [r.day, r.n]));
    const failures = byDay(signInFailures);
    const signUpsByDay = byDay(signUps);
    return {
      users,
      activeSessions,
      days: signIns.map((r) => ({ day: r.day, signIns: r.n, signInFailures: failures.get(r.day) ?? 0, signUps: signUpsByDay.get(r.day) ?? 0 })),
    };
  }
}
