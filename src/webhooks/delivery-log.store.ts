import { Injectable } from '@nestjs/common';
import { Database, statement } from '../database/sql';
import { SIGN_IN_EMAIL } from '../notifications/sign-in-email';
import { DELIVERY_SELECT, DeliveryRow } from './delivery.mapper';
import type { DeliveryReason, DeliveryStatus } from '../outbox/webhook-delivery.entity';

/** A delivery of a post's event to one endpoint, as the dashboard's post page shows it. */
export interface PostDeliveryRow {
  event_id: string;
  id: string;
  endpoint_id: string;
  status: DeliveryStatus;
  reason: DeliveryReason | null;
  attempt_count: number;
  next_attempt_at: Date | null;
}

/**
 * The delivery log as the webhooks API and the dashboard read it: reads only (the outbox owns
 * and writes these tables, outbox/deliveries.store.ts). Sign-in emails are not events'
 * deliveries: they are never shown.
 */
@Injectable()
export class DeliveryLogStore {
  private static readonly FOR_ENDPOINT = statement(
    'delivery_log_for_endpoint',
    `${DELIVERY_SELECT} WHERE d.workspace_id = $1 AND d.endpoint_id = $2
      ORDER BY d.event_created_at DESC, d.event_id DESC LIMIT $3 OFFSET $4`,
  );
  private static readonly LIST = statement(
    'delivery_log_list',
    `${DELIVERY_SELECT} WHERE d.workspace_id = $1 AND d.event_type <> $6
        AND ($2::text IS NULL OR coalesce(e.kind, 'email') = $2) AND ($3::uuid IS NULL OR d.endpoint_id = $3)
      ORDER BY d.event_created_at DESC, d.created_at DESC, d.id DESC LIMIT $4 OFFSET $5`,
  );
  private static readonly GET = statement(
    'delivery_log_get',
    `${DELIVERY_SELECT} WHERE d.workspace_id = $1 AND d.id = $2 AND d.event_type <> $3`,
  );
  private static readonly POST_EVENTS = statement(
    'delivery_log_post_events',
    `SELECT id, type, created_at FROM outbox_events
      WHERE workspace_id = $1 AND (data -> 'post' ->> 'id')::bigint = $2 ORDER BY created_at DESC, id LIMIT 100`,
  );
  private static readonly OF_EVENTS = statement(
    'delivery_log_of_events',
    `SELECT event_id, id, endpoint_id, status, reason, attempt_count, next_attempt_at FROM webhook_deliveries
      WHERE workspace_id = $1 AND endpoint_id = ANY ($2::uuid[]) AND event_id = ANY ($3::uuid[])`,
  );

  constructor(private readonly db: Database) {}

  /** An endpoint's deliveries, newest event first (one endpoint has one delivery per event). */
  forEndpoint(workspaceId: string, endpointId: string, limit: number, offset: number): Promise<DeliveryRow[]> {
    return this.db.rows(DeliveryLogStore.FOR_ENDPOINT, [workspaceId, endpointId, limit, offset]);
  }

  /** The workspace's deliveries (voter emails included), newest first, optionally of one channel or endpoint. */
  list(workspaceId: string, filter: { channel: string | null; endpointId: string | null }, limit: number, offset: number): Promise<DeliveryRow[]> {
    return this.db.rows(DeliveryLogStore.LIST, [workspaceId, filter.channel, filter.endpointId, limit, offset, SIGN_IN_EMAIL]);
  }

  async get(workspaceId: string, id: string): Promise<DeliveryRow | null> {
    const [row] = await this.db.rows<DeliveryRow>(DeliveryLogStore.GET, [workspaceId, id, SIGN_IN_EMAIL]);
    return row ?? null;
  }

  /** A post's events, newest first (at most 100). */
  postEvents(workspaceId: string, postId: number): Promise<{ id: string; type: string; created_at: Date }[]> {
    return this.db.rows(DeliveryLogStore.POST_EVENTS, [workspaceId, postId]);
  }

  /** What these events became at these endpoints. */
  ofEvents(workspaceId: string, endpointIds: string[], eventIds: string[]): Promise<PostDeliveryRow[]> {
    return this.db.rows(DeliveryLogStore.OF_EVENTS, [workspaceId, endpointIds, eventIds]);
  }
}
