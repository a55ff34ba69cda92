import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { QueryInt } from '../../common/validation/validation';

export const STATS_DAYS_DEFAULT = 30;
const STATS_DAYS_MAX = 90;

export class SectorStatsQuery {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: STATS_DAYS_MAX,
    description: `How many UTC days the series covers, today included. Default ${STATS_DAYS_DEFAULT}, 1 to ${STATS_DAYS_MAX}.`,
  })
  @IsOptional() @QueryInt() @IsInt() @Min(1) @Max(STATS_DAYS_MAX) days?: number;
}

export class SectorStatsDayResponse {
  @ApiProperty({ description: 'The UTC day, YYYY-MM-DD.', example: '2026-11-01' }) day: string;
  @ApiProperty({ type: 'integer', format: 'int32', description: 'Completed sign-ins: `sign_in` audit events with outcome success and status SUCCESS (a token was issued).' })
  signIns: number;
  @ApiProperty({ type: 'integer', format: 'int32', description: 'Refused sign-in steps of any factor: `sign_in` audit events with outcome failure.' })
  signInFailures: number;
  @ApiProperty({ type: 'integer', format: 'int32', description: 'Self sign-ups: `user.created` audit events whose actor is anonymous.' })
  signUps: number;
}

export class SectorStatsResponse {
  @ApiProperty({ type: 'integer', format: 'int32', description: 'The users of the sector now.' }) users: number;
  @ApiProperty({ type: 'integer', format: 'int32', description: 'Sessions of the sector neither revoked nor past their lifetime or idle timeout now.' })
  activeSessions: number;
  @ApiProperty({ type: [SectorStatsDayResponse], description: 'One entry per UTC day of the period, oldest first, today last; days without events carry zeros.' })
  days: SectorStatsDayResponse[];
}
