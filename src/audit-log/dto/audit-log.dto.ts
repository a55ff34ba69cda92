import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { QueryInt } from '../../common/validation/validation';
import { AUDIT_EVENT_TYPES } from '../../audit/audit-event';

export const AUDIT_PAGE_SIZE_DEFAULT = 50;
const AUDIT_PAGE_SIZE_MAX = 200;

export class ListAuditEventsQuery {
  @ApiPropertyOptional({ type: 'string', format: 'int64', description: 'Unix seconds: events at or after this time.' })
  @IsOptional() @Matches(/^\d{1,12}$/) from?: string;
  @ApiPropertyOptional({ type: 'string', format: 'int64', description: 'Unix seconds: events before this time.' })
  @IsOptional() @Matches(/^\d{1,12}$/) to?: string;
  @ApiPropertyOptional({ description: 'The id of the actor (a user id or an API token id).' })
  @IsOptional() @IsString() @MaxLength(200) actor?: string;
  @ApiPropertyOptional({ description: 'The id of the target (a user id, a token id, a sector id, …).' })
  @IsOptional() @IsString() @MaxLength(200) target?: string;
  @ApiPropertyOptional({ enum: AUDIT_EVENT_TYPES }) @IsOptional() @IsIn(AUDIT_EVENT_TYPES) type?: string;
  @ApiPropertyOptional({ description: 'The nextCursor of the previous page.' }) @IsOptional() @IsString() @MaxLength(64) cursor?: string;
  @ApiPropertyOptional({ type: 'integer', format: 'int32', description: `Default ${AUDIT_PAGE_SIZE_DEFAULT}, at most ${AUDIT_PAGE_SIZE_MAX}.` })
  @IsOptional() @QueryInt() @IsInt() @Min(1) @Max(AUDIT_PAGE_SIZE_MAX) pageSize?: number;
}

export class AuditPartyResponse {
  @ApiProperty({ description: "'user', 'apiToken', 'system' or 'anonymous' for an actor; 'user', 'apiToken', 'sector', 'tenant', 'signingKey', … for a target ('' when none)." })
  kind: string;
  @ApiProperty() id: string;
}

export class AuditEventResponse {
  @ApiProperty({ type: 'string', format: 'int64' }) id: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds.' }) occurredAt: string;
  @ApiProperty({ enum: AUDIT_EVENT_TYPES }) type: string;
  @ApiProperty({ enum: ['success', 'failure'] }) outcome: string;
  @ApiProperty({ description: 'The refusal reason of a failure (an error reason), else empty.' }) reason: string;
  @ApiProperty({ type: AuditPartyResponse }) actor: AuditPartyResponse;
  @ApiProperty({ type: AuditPartyResponse }) target: AuditPartyResponse;
  @ApiProperty() sectorID: string;
  @ApiProperty() clientAddress: string;
  @ApiProperty() requestId: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'What changed (field names, factor, token name); never secrets.' })
  details: Record<string, unknown>;
}

export class ListAuditEventsResponse {
  @ApiProperty({ type: [AuditEventResponse] }) events: AuditEventResponse[];
  @ApiProperty({ description: 'Pass as `cursor` for the next (older) page; empty on the last page.' }) nextCursor: string;
}
