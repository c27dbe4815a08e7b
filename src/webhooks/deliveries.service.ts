import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError } from '../common/app-error';
import { SIGN_IN_EMAIL } from '../notifications/sign-in-email';
import { Page, pageOf } from '../common/page.query';
import { Channel, DELIVERY_SELECT, DeliveryRow, toDeliveryResponse } from './delivery.mapper';
import { EndpointsService } from './endpoints.service';
import type { DeliveryReason, DeliveryStatus } from './webhook-delivery.entity';
import type { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { OUTBOX_CHANNEL } from '../outbox/events.store';

export interface PostEventDeliveries {
  event: { id: string; type: string; created_at: Date };
  deliveries: {
    id: string;
    endpoint: WebhookEndpointEntity;
    status: DeliveryStatus;
    reason: DeliveryReason | null;
    attempt_count: number;
    next_attempt_at: Date | null;
  }[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class DeliveriesService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly endpoints: EndpointsService,
  ) {}

  /**
   * An endpoint's deliveries, newest event first, with every attempt. (One endpoint has one
   * delivery per event, so the event's id makes the order total.)
   */
  async listForEndpoint(workspaceId: string, endpointId: string, page: Page) {
    const endpoint = await this.endpoints.get(workspaceId, endpointId);
    const rows: DeliveryRow[] = await this.db.query(
      `${DELIVERY_SELECT} WHERE d.workspace_id = $1 AND d.endpoint_id = $2
        ORDER BY d.event_created_at DESC, d.event_id DESC LIMIT $3 OFFSET $4`,
      [workspaceId, endpoint.id, page.limit + 1, page.offset],
    );
    return pageOf(rows.map(toDeliveryResponse), page);
  }

  /**
   * Every delivery of the workspace (voter emails included), newest first, optionally of one
   * channel or endpoint. Sign-in emails are not events' deliveries: they are never listed.
   */
  async list(workspaceId: string, filter: { channel?: Channel; endpointId?: string }, page: Page) {
    if (filter.endpointId !== undefined) await this.endpoints.get(workspaceId, filter.endpointId);
    const rows: DeliveryRow[] = await this.db.query(
      `${DELIVERY_SELECT} WHERE d.workspace_id = $1 AND d.event_type <> '${SIGN_IN_EMAIL}'
          AND ($2::text IS NULL OR coalesce(e.kind, 'email') = $2) AND ($3::uuid IS NULL OR d.endpoint_id = $3)
        ORDER BY d.event_created_at DESC, d.created_at DESC, d.id DESC LIMIT $4 OFFSET $5`,
      [workspaceId, filter.channel ?? null, filter.endpointId ?? null, page.limit + 1, page.offset],
    );
    return pageOf(rows.map(toDeliveryResponse), page);
  }

  /**
   * What each event of a post became at each endpoint (the dashboard's post page): its events,
   * newest first, each with one delivery per endpoint that was subscribed when it happened.
   */
  async forPost(workspaceId: string, postId: number): Promise<PostEventDeliveries[]> {
    const events: { id: string; type: string; created_at: Date }[] = await this.db.query(
      `SELECT id, type, created_at FROM outbox_events
        WHERE workspace_id = $1 AND (data -> 'post' ->> 'id')::bigint = $2 ORDER BY created_at DESC, id LIMIT 100`,
      [workspaceId, postId],
    );
    if (events.length === 0) return [];
    const endpoints = await this.endpoints.list(workspaceId);
    const rows: { event_id: string; id: string; endpoint_id: string; status: DeliveryStatus; reason: DeliveryReason | null; attempt_count: number; next_attempt_at: Date | null }[] =
      endpoints.length === 0
        ? []
        : await this.db.query(
            `SELECT event_id, id, endpoint_id, status, reason, attempt_count, next_attempt_at FROM webhook_deliveries
              WHERE workspace_id = $1 AND endpoint_id = ANY ($2::uuid[]) AND event_id = ANY ($3::uuid[])`,
            [workspaceId, endpoints.map((e) => e.id), events.map((e) => e.id)],
          );
    const byId = new Map(endpoints.map((e) => [e.id, e]));
    return events.map((event) => ({
      event,
      deliveries: rows
        .filter((row) => row.event_id === event.id)
        .map((row) => ({ ...row, endpoint: byId.get(row.endpoint_id)! }))
        .sort((a, b) => a.endpoint.createdAt.getTime() - b.endpoint.createdAt.getTime()),
    }));
  }

  async get(workspaceId: string, id: string) {
    const rows: DeliveryRow[] = UUID.test(id)
      ? await this.db.query(`${DELIVERY_SELECT} WHERE d.workspace_id = $1 AND d.id = $2 AND d.event_type <> '${SIGN_IN_EMAIL}'`, [workspaceId, id])
      : [];
    if (rows.length === 0) throw AppError.notFound('delivery');
    return toDeliveryResponse(rows[0]);
  }

  /**
   * Sends a delivery again now, whatever became of it. One more attempt: if it fails and the
   * retry schedule is used up, the delivery ends `failed` again.
   */
  async retry(workspaceId: string, id: string) {
    await this.get(workspaceId, id);
    await this.db.transaction(async (manager) => {
      const [row]: { enabled: boolean | null }[] = await manager.query(
        `SELECT e.enabled FROM webhook_deliveries d
           LEFT JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id AND e.id = d.endpoint_id
          WHERE d.workspace_id = $1 AND d.id = $2 FOR UPDATE OF d`,
        [workspaceId, id],
      );
      if (!row) throw AppError.notFound('delivery'); // its endpoint just deleted
      if (row.enabled === false) {
        throw new AppError('conflict', 'The endpoint is turned off; turn it on before retrying its deliveries.');
      }
      await manager.query(
        `UPDATE webhook_deliveries SET status = 'pending', reason = NULL, next_attempt_at = now()
          WHERE workspace_id = $1 AND id = $2 AND (status <> 'pending' OR locked_by IS NULL)`,
        [workspaceId, id],
      );
      // Naming the workspace: on Citus the processors look there alone (outbox/look.ts).
      await manager.query(`SELECT pg_notify($1, $2::text)`, [OUTBOX_CHANNEL, workspaceId]);
    });
    return this.get(workspaceId, id);
  }
}
