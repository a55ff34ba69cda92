import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../access/decorators';
import { TargetScope } from '../settings/request-targets';
import { Role } from '../access/role-matrix';
import { DomainError } from '../common/errors/domain-error';
import { ApiErrors } from '../common/http/api-errors';
import { unixSeconds } from '../common/wire/wire';
import { SectorScope } from '../settings/sector-scope';
import { decodeAuditCursor, encodeAuditCursor } from '../audit/audit-event';
import { AuditRepository } from '../audit/audit.repository';
import { AUDIT_PAGE_SIZE_DEFAULT, ListAuditEventsQuery, ListAuditEventsResponse } from './dto/audit-log.dto';

@ApiTags('Audit events')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/sectors/:sectorID/audit-events')
export class AuditController {
  constructor(private readonly audit: AuditRepository) {}

  @Get()
  @Authenticated({ role: Role.AUDIT_READER, sectorFrom: 'param' })
  @ApiOperation({ summary: "The sector's audit events, newest first, paged by cursor (signed-in admins only, never API tokens)" })
  @ApiOkResponse({ type: ListAuditEventsResponse })
  async list(@TargetScope() scope: SectorScope, @Query() query: ListAuditEventsQuery): Promise<ListAuditEventsResponse> {
    const limit = query.pageSize ?? AUDIT_PAGE_SIZE_DEFAULT;
    let beforeId: string | undefined;
    if (query.cursor !== undefined && query.cursor !== '') {
      beforeId = decodeAuditCursor(query.cursor);
      if (beforeId === undefined) throw DomainError.invalidField('cursor', 'is not a cursor this listing issued');
    }
    const rows = await this.audit.list(
      scope.db,
      scope.route.sectorId,
      {
        from: query.from !== undefined ? new Date(Number(query.from) * 1000) : undefined,
        to: query.to !== undefined ? new Date(Number(query.to) * 1000) : undefined,
        actor: query.actor || undefined,
        target: query.target || undefined,
        type: query.type || undefined,
      },
      beforeId,
      limit + 1,
    );
    const page = rows.slice(0, limit);
    return {
      events: page.map((e) => ({
        id: e.id,
        occurredAt: unixSeconds(e.occurredAt),
        type: e.type,
        outcome: e.outcome,
        reason: e.reason,
        actor: { kind: e.actorKind, id: e.actorId },
        target: { kind: e.targetKind, id: e.targetId },
        sectorID: e.sectorId,
        clientAddress: e.clientIp,
        requestId: e.requestId,
        details: e.details,
      })),
      nextCursor: rows.length > limit ? encodeAuditCursor(page[page.length - 1].id) : '',
    };
  }
}
