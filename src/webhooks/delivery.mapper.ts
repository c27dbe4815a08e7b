import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { EVENT_TYPES } from '../outbox/outbox-event.entity';
import type { DeliveryReason, DeliveryStatus } from '../outbox/webhook-delivery.entity';
import { ATTEMPT_ERRORS, AttemptError } from './attempt-errors';

export const CHANNELS = ['webhook', 'slack', 'discord', 'email'] as const;
export type Channel = (typeof CHANNELS)[number];

export interface DeliveryRow {
  id: string;
  endpoint_id: string | null;
  channel: Channel;
  event_type: string;
  status: DeliveryStatus;
  reason: DeliveryReason | null;
  created_at: Date;
  next_attempt_at: Date | null;
  attempts: { at: string; duration_ms: number; status_code: number | null; error: AttemptError | null }[];
}

/**
 * A delivery and its attempts, oldest attempt first. Every table is named with the workspace,
 * the statement's $1 (d's too: `WHERE d.workspace_id = $1`): on Citus, one shard's statement.
 */
export const DELIVERY_SELECT = `
  SELECT d.id, d.endpoint_id, coalesce(e.kind, 'email') AS channel, d.event_type, d.status, d.reason, d.created_at, d.next_attempt_at,
         COALESCE((SELECT json_agg(json_build_object(
                     'at', to_char(a.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                     'duration_ms', a.duration_ms, 'status_code', a.status_code, 'error', a.error)
                   ORDER BY a.at, a.id)
                     FROM delivery_attempts a
                    WHERE a.workspace_id = $1 AND a.delivery_id = d.id), '[]') AS attempts
    FROM webhook_deliveries d
    LEFT JOIN webhook_endpoints e ON e.workspace_id = $1 AND e.id = d.endpoint_id`;

@ApiSchema({ name: 'DeliveryAttempt' })
export class AttemptResponse {
  @ApiProperty({ format: 'date-time' })
  at!: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  duration_ms!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The HTTP status (or SMTP reply code), if there was an answer.' })
  status_code!: number | null;

  @ApiProperty({
    enum: ATTEMPT_ERRORS,
    type: String,
    nullable: true,
    description:
      'What happened when there was no usable answer: `timeout`, `connection_refused`, `connection_reset`, `dns_error`, ' +
      '`tls_error`, `unsafe_target` (the address is not public), `network_error` (any other), `smtp_error` (voter email), ' +
      '`secret_unreadable` (the stored secret does not open with `ENCRYPTION_KEY`); null when there was an answer.',
  })
  error!: AttemptError | null;
}

/** A delivery of one event to one endpoint or one voter's email, with every attempt. */
@ApiSchema({ name: 'Delivery' })
export class DeliveryResponse {
  @ApiProperty({ format: 'uuid', description: 'The `Chorus-Delivery` header and the body\'s `id`.' })
  id!: string;

  @ApiProperty({ enum: CHANNELS, description: 'Where it goes: an own server, Slack, Discord, or a voter\'s email (whose address is never shown).' })
  channel!: Channel;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The endpoint; null for a voter email.' })
  endpoint_id!: string | null;

  @ApiProperty({ enum: [...EVENT_TYPES, 'ping'], description: '`ping` for an endpoint test.' })
  event_type!: string;

  @ApiProperty({ enum: ['pending', 'delivered', 'failed', 'cancelled'] })
  status!: DeliveryStatus;

  @ApiProperty({ enum: ['quota_exceeded', 'endpoint_disabled', 'retries_exhausted', 'unsubscribed'], nullable: true, type: String })
  reason!: DeliveryReason | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Null unless pending.' })
  next_attempt_at!: string | null;

  @ApiProperty({ type: AttemptResponse, isArray: true })
  attempts!: AttemptResponse[];
}

export function toDeliveryResponse(row: DeliveryRow): DeliveryResponse {
  return {
    id: row.id,
    channel: row.channel,
    endpoint_id: row.endpoint_id,
    event_type: row.event_type,
    status: row.status,
    reason: row.reason,
    created_at: row.created_at.toISOString(),
    next_attempt_at: row.status === 'pending' && row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
    attempts: row.attempts,
  };
}

/** What `recover` answers. */
@ApiSchema({ name: 'Recovered' })
export class RecoveredResponse {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'How many failed deliveries were scheduled again.' })
  scheduled!: number;
}
