import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { EVENT_TYPES } from '../outbox/outbox-event.entity';
import { DisabledReason, ENDPOINT_KINDS, EndpointKind, WebhookEndpointEntity } from '../outbox/webhook-endpoint.entity';

/** A webhook, Slack or Discord endpoint as the API shows it. */
@ApiSchema({ name: 'WebhookEndpoint' })
export class EndpointResponse {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: ENDPOINT_KINDS })
  kind!: EndpointKind;

  @ApiProperty({ description: 'The URL; masked for Slack and Discord, whose URLs are credentials.' })
  url!: string;

  @ApiProperty({ enum: EVENT_TYPES, isArray: true })
  events!: string[];

  @ApiProperty()
  enabled!: boolean;

  @ApiProperty({ enum: ['user', 'consecutive_failures', 'gone'], nullable: true, type: String })
  disabled_reason!: DisabledReason | null;

  @ApiProperty({ type: 'integer', minimum: 0 })
  consecutive_failures!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  /** Only in the answers to create and rotate_secret, documented by EndpointWithSecretResponse. */
  secret?: string;
}

/** The answers to creating a webhook endpoint and to rotating its secret: the only ones with the secret. */
@ApiSchema({ name: 'WebhookEndpointWithSecret' })
export class EndpointWithSecretResponse extends EndpointResponse {
  @ApiProperty({ enum: ['webhook'] })
  declare kind: 'webhook';

  @ApiProperty({
    pattern: '^whsec_[0-9A-Za-z]{32,}$',
    description: 'The signing secret, shown in this answer only: keep it to verify deliveries.',
  })
  declare secret: string;
}

/** A Slack or Discord endpoint as created: no signing secret, its URL masked. */
@ApiSchema({ name: 'ChatEndpoint' })
export class ChatEndpointResponse extends EndpointResponse {
  @ApiProperty({ enum: ['slack', 'discord'] })
  declare kind: 'slack' | 'discord';
}

/**
 * The endpoint as the API shows it: Slack and Discord URLs masked, and the secret only when
 * given (the answers to create and rotate).
 */
export function toEndpointResponse(endpoint: WebhookEndpointEntity, secret?: string | null): EndpointResponse {
  return {
    id: endpoint.id,
    kind: endpoint.kind,
    url: endpoint.urlShown,
    events: endpoint.events,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabledReason,
    consecutive_failures: endpoint.consecutiveFailures,
    created_at: endpoint.createdAt.toISOString(),
    ...(secret !== undefined ? { secret: secret ?? undefined } : {}),
  };
}
