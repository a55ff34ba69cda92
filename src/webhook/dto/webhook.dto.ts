import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, MaxLength } from 'class-validator';
import { QueryInt } from '../../common/validation/validation';
import { ALL_EVENTS, SERVICE_EVENT_TYPES } from '../../events/service-event';

/** A sector holds at most this many webhooks. */
export const MAX_WEBHOOKS_PER_SECTOR = 50;
const MAX_DESCRIPTION_LENGTH = 500;
/** Longest endpoint URL accepted (src/webhook/webhook-url.ts checks it again with the rest of the URL rules). */
const MAX_URL_LENGTH = 2048;
/** Room for every event type, with duplicates (which are dropped). */
const MAX_EVENTS = 100;

/** What `events` may hold: the service's event types, or `*` alone for every event (those added later included). */
const EVENT_CHOICES = [ALL_EVENTS, ...SERVICE_EVENT_TYPES];
const EVENTS_DESCRIPTION =
  'The event types the endpoint receives (docs/api.md, Webhooks), or `["*"]` alone for every event, those added later included. At least one; duplicates are dropped, the order kept.';
const URL_DESCRIPTION =
  'Where events are POSTed: an absolute `https` URL (no credentials, no fragment, at most 2,048 characters) whose host is a public address or a name resolving only to public addresses. `http` and loopback, private and link-local addresses are accepted only when the service runs with `OUTBOUND_ALLOW_PRIVATE_NETWORKS=true`.';

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export class CreateWebhookDto {
  @ApiProperty({ description: URL_DESCRIPTION, maxLength: MAX_URL_LENGTH })
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  url: string;

  @ApiProperty({ enum: EVENT_CHOICES, enumName: 'WebhookEventType', isArray: true, description: EVENTS_DESCRIPTION, minItems: 1, maxItems: MAX_EVENTS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_EVENTS)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  events: string[];

  @ApiPropertyOptional({ description: 'What the endpoint is for, up to 500 characters. Absent: empty.', maxLength: MAX_DESCRIPTION_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_DESCRIPTION_LENGTH)
  description?: string;

  @ApiPropertyOptional({ description: 'Whether events are sent to it. Absent: true.' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** A change to a webhook: a field present is set, a field left out keeps its stored value (the contract's PUT merge). */
export class UpdateWebhookDto {
  @ApiPropertyOptional({ description: URL_DESCRIPTION, maxLength: MAX_URL_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  url?: string;

  @ApiPropertyOptional({ enum: EVENT_CHOICES, enumName: 'WebhookEventType', isArray: true, description: EVENTS_DESCRIPTION, minItems: 1, maxItems: MAX_EVENTS })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_EVENTS)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  events?: string[];

  @ApiPropertyOptional({ description: 'What the endpoint is for, up to 500 characters.', maxLength: MAX_DESCRIPTION_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_DESCRIPTION_LENGTH)
  description?: string;

  @ApiPropertyOptional({ description: 'Whether events are sent to it. Enabling an endpoint the service disabled clears `disabledReason` and `failingSince`.' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class CreateWebhookResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() url: string;
  @ApiProperty({ enum: EVENT_CHOICES, enumName: 'WebhookEventType', isArray: true }) events: string[];
  @ApiProperty() description: string;
  @ApiProperty() enabled: boolean;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds.' }) createdAt: string;
  @ApiProperty({
    description: 'The signing secret, `whsec_` and the base64 of 32 random bytes: shown only in this response (and a new one in rotate-secret’s). Verify deliveries with it (Standard Webhooks).',
  })
  secret: string;
}

export class WebhookResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() url: string;
  @ApiProperty({ enum: EVENT_CHOICES, enumName: 'WebhookEventType', isArray: true }) events: string[];
  @ApiProperty() description: string;
  @ApiProperty({ description: 'False when an admin disabled it, or when the service did after its deliveries failed for WEBHOOK_DISABLE_AFTER_SECONDS (see disabledReason).' })
  enabled: boolean;
  @ApiProperty({ description: 'Why the service disabled the endpoint; empty when it did not (also when an admin disabled it).' }) disabledReason: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds: when the current run of failed deliveries began; "0" while deliveries succeed.' })
  failingSince: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds.' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds.' }) updatedAt: string;
}

export class ListWebhooksResponse {
  @ApiProperty({ type: [WebhookResponse], description: 'The sector’s webhooks, oldest first; never their secrets.' }) webhooks: WebhookResponse[];
}

export class DeleteWebhookResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
}

export class RotateWebhookSecretResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'The new signing secret, shown only here. The previous one keeps signing beside it for 24 hours (two signatures per delivery).' })
  secret: string;
}

export class TestWebhookResponse {
  @ApiProperty({ description: 'The id of the `webhook.test` event queued for the endpoint: its `webhook-id` header and the `eventID` of its delivery.' })
  eventID: string;
}

export class ListWebhookDeliveriesQuery {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only the deliveries in this state.' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: (typeof DELIVERY_STATUSES)[number];

  @ApiPropertyOptional({ description: 'The nextCursor of the previous page.' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', format: 'int32', description: 'Default 20, at most 100.' })
  @IsOptional()
  @QueryInt()
  @IsInt()
  pageSize?: number;
}

export class WebhookDeliveryResponse {
  @ApiProperty({ type: 'string', format: 'int64' }) id: string;
  @ApiProperty({ description: 'The event’s id: the `webhook-id` header of every attempt.' }) eventID: string;
  @ApiProperty({ enum: SERVICE_EVENT_TYPES, enumName: 'ServiceEventType', description: 'The event’s type (docs/api.md, Webhooks).' }) eventType: string;
  @ApiProperty({ enum: DELIVERY_STATUSES, description: '`pending` until an attempt succeeds (any 2xx) or the retry schedule is spent (`failed`).' }) status: string;
  @ApiProperty({ type: 'integer', format: 'int32', description: 'Attempts made so far.' }) attempts: number;
  @ApiProperty({ type: 'integer', format: 'int32', description: 'The HTTP status of the last attempt; 0 before the first, or when the last got no answer (see lastError).' })
  lastStatus: number;
  @ApiProperty({ description: 'Why the last attempt failed (e.g. `HTTP 500`, a timeout, a refused address); empty when it did not.' }) lastError: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds: when the next attempt is due; "0" unless pending.' })
  nextAttemptAt: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds: when the event happened.' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'int64', description: 'Unix seconds: when the delivery succeeded or failed for good; "0" while pending.' })
  finishedAt: string;
}

export class ListWebhookDeliveriesResponse {
  @ApiProperty({ type: [WebhookDeliveryResponse], description: 'Newest first. Ended deliveries are kept 30 days.' }) deliveries: WebhookDeliveryResponse[];
  @ApiProperty({ description: 'Pass as `cursor` for the next (older) page; empty on the last page.' }) nextCursor: string;
}
