import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../access/decorators';
import { Role } from '../access/role-matrix';
import { ApiErrors } from '../common/http/api-errors';
import { TargetScope } from '../settings/request-targets';
import { SectorScope } from '../settings/sector-scope';
import {
  CreateWebhookDto,
  CreateWebhookResponse,
  DeleteWebhookResponse,
  ListWebhookDeliveriesQuery,
  ListWebhookDeliveriesResponse,
  ListWebhooksResponse,
  RotateWebhookSecretResponse,
  TestWebhookResponse,
  UpdateWebhookDto,
  WebhookResponse,
} from './dto/webhook.dto';
import { WebhookService } from './webhook.service';

/** A sector's webhooks (docs/api.md, Webhooks), for its signed-in admins and those of the default sector. */
@ApiTags('Webhooks')
@ApiBearerAuth()
@ApiErrors()
@Controller('api/v1/sectors/:sectorID/webhooks')
export class WebhookController {
  constructor(private readonly webhooks: WebhookService) {}

  @Post()
  @HttpCode(200)
  @Authenticated({ role: Role.WEBHOOK_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Register an endpoint for the sector’s events (its signing secret is shown only here; signed-in admins of the sector or the default sector)' })
  @ApiOkResponse({ type: CreateWebhookResponse })
  create(@TargetScope() scope: SectorScope, @Body() body: CreateWebhookDto): Promise<CreateWebhookResponse> {
    return this.webhooks.create(scope, body);
  }

  @Get()
  @Authenticated({ role: Role.WEBHOOK_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'List the sector’s webhooks (never their secrets)' })
  @ApiOkResponse({ type: ListWebhooksResponse })
  list(@TargetScope() scope: SectorScope): Promise<ListWebhooksResponse> {
    return this.webhooks.list(scope);
  }

  @Put(':id')
  @HttpCode(200)
  @Authenticated({ role: Role.WEBHOOK_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Change a webhook’s URL, events, description or enabled flag (merge: fields left out keep their values)' })
  @ApiOkResponse({ type: WebhookResponse })
  update(@TargetScope() scope: SectorScope, @Param('id') id: string, @Body() body: UpdateWebhookDto): Promise<WebhookResponse> {
    return this.webhooks.update(scope, id, body);
  }

  @Delete(':id')
  @Authenticated({ role: Role.WEBHOOK_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Delete a webhook: nothing more is sent to it, its delivery log goes with it' })
  @ApiOkResponse({ type: DeleteWebhookResponse })
  delete(@TargetScope() scope: SectorScope, @Param('id') id: string): Promise<DeleteWebhookResponse> {
    return this.webhooks.delete(scope, id);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @Authenticated({ role: Role.WEBHOOK_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Give a webhook a new signing secret (shown only here); the old one signs beside it for 24 hours' })
  @ApiOkResponse({ type: RotateWebhookSecretResponse })
  rotateSecret(@TargetScope() scope: SectorScope, @Param('id') id: string): Promise<RotateWebhookSecretResponse> {
    return this.webhooks.rotateSecret(scope, id);
  }

  @Get(':id/deliveries')
  @Authenticated({ role: Role.WEBHOOK_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'A webhook’s deliveries, newest first, paged by cursor: event, attempts, last answer, next attempt' })
  @ApiOkResponse({ type: ListWebhookDeliveriesResponse })
  deliveries(@TargetScope() scope: SectorScope, @Param('id') id: string, @Query() query: ListWebhookDeliveriesQuery): Promise<ListWebhookDeliveriesResponse> {
    return this.webhooks.deliveries(scope, id, query);
  }

  @Post(':id/test')
  @HttpCode(200)
  @Authenticated({ role: Role.WEBHOOK_ADMIN, sectorFrom: 'param' })
  @ApiOperation({ summary: 'Send a webhook.test event to this webhook alone (whatever it subscribes to, even while disabled)' })
  @ApiOkResponse({ type: TestWebhookResponse })
  test(@TargetScope() scope: SectorScope, @Param('id') id: string): Promise<TestWebhookResponse> {
    return this.webhooks.test(scope, id);
  }
}
