import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError } from '../common/app-error';
import { Page, pageOf } from '../common/page.query';
import { Channel, DELIVERY_SELECT, DeliveryRow, toDeliveryResponse } from './delivery.mapper';
import { EndpointsService } from './endpoints.service';
import { OUTBOX_CHANNEL } from './events.service';

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

  /** Every delivery of the workspace (emails included), newest first, optionally of one channel or endpoint. */
  async list(workspaceId: string, filter: { channel?: Channel; endpointId?: string }, page: Page) {
    if (filter.endpointId !== undefined) await this.endpoints.get(workspaceId, filter.endpointId);
    const rows: DeliveryRow[] = await this.db.query(
      `${DELIVERY_SELECT} WHERE d.workspace_id = $1
          AND ($2::text IS NULL OR coalesce(e.kind, 'email') = $2) AND ($3::uuid IS NULL OR d.endpoint_id = $3)
        ORDER BY d.event_created_at DESC, d.created_at DESC, d.id DESC LIMIT $4 OFFSET $5`,
      [workspaceId, filter.channel ?? null, filter.endpointId ?? null, page.limit + 1, page.offset],
    );
    return pageOf(rows.map(toDeliveryResponse), page);
  }

  async get(workspaceId: string, id: string) {
    const rows: DeliveryRow[] = UUID.test(id)
      ? await this.db.query(`${DELIVERY_SELECT} WHERE d.workspace_id = $1 AND d.id = $2`, [workspaceId, id])
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
      await manager.query(`SELECT pg_notify($1, '')`, [OUTBOX_CHANNEL]);
    });
    return this.get(workspaceId, id);
  }
}
