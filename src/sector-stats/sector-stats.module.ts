import { Module } from '@nestjs/common';
import { SectorStatsController } from './sector-stats.controller';
import { SectorStatsRepository } from './sector-stats.repository';
import { SectorStatsService } from './sector-stats.service';

/** A sector's dashboard figures over HTTP (GET /api/v1/sectors/{sectorID}/stats), read from the audit trail, users and sessions. */
@Module({ controllers: [SectorStatsController], providers: [SectorStatsService, SectorStatsRepository] })
export class SectorStatsModule {}
