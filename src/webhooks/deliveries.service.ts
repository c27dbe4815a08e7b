import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Page, pageOf } from '../common/page.query';
import { OutboxDeliveries } from '../outbox/outbox-deliveries.service';
import { DeliveryLogStore } from './delivery-log.store';
import { Channel, toDeliveryResponse } from './delivery.mapper';
import { EndpointsService } from './endpoints.service';
import type { DeliveryReason, DeliveryStatus } from '../outbox/webhook-delivery.entity';
import type { WebhookEndpointEntity } from '../outbox/webhook-endpoint.entity';

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
    private readonly log: DeliveryLogStore,
    private readonly endpoints: EndpointsService,
    private readonly outbox: OutboxDeliveries,
  ) {}

  /**
   * An endpoint's deliveries, newest event first, with every attempt. (One endpoint has one
   * delivery per event, so the event's id makes the order total.)
   */
  async listForEndpoint(workspaceId: string, endpointId: string, page: Page) {
    const endpoint = await this.endpoints.get(workspaceId, endpointId);
    const rows = await this.log.forEndpoint(workspaceId, endpoint.id, page.limit + 1, page.offset);
    return pageOf(rows.map(toDeliveryResponse), page);
  }

  /**
   * Every delivery of the workspace (voter emails included), newest first, optionally of one
   * channel or endpoint. Sign-in emails are not events' deliveries: they are never listed.
   */
  async list(workspaceId: string, filter: { channel?: Channel; endpointId?: string }, page: Page) {
    if (filter.endpointId !== undefined) await this.endpoints.get(workspaceId, filter.endpointId);
    const rows = await this.log.list(
      workspaceId,
      { channel: filter.channel ?? null, endpointId: filter.endpointId ?? null },
      page.limit + 1,
      page.offset,
    );
    return pageOf(rows.map(toDeliveryResponse), page);
  }

  /**
   * What each event of a post became at each endpoint (the dashboard's post page): its events,
   * newest first, each with one delivery per endpoint that was subscribed when it happened.
   */
  async forPost(workspaceId: string, postId: number): Promise<PostEventDeliveries[]> {
    const events = await this.log.postEvents(workspaceId, postId);
    if (events.length === 0) return [];
    const endpoints = await this.endpoints.list(workspaceId);
    const rows =
      endpoints.length === 0
        ? []
        : await this.log.ofEvents(
            workspaceId,
            endpoints.map((e) => e.id),
            events.map((e) => e.id),
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
    const row = UUID.test(id) ? await this.log.get(workspaceId, id) : null;
    if (!row) throw AppError.notFound('delivery');
    return toDeliveryResponse(row);
  }

  /**
   * Sends a delivery again now, whatever became of it. One more attempt: if it fails and the
   * retry schedule is used up, the delivery ends `failed` again.
   */
  async retry(workspaceId: string, id: string) {
    await this.get(workspaceId, id);
    await this.outbox.retry(workspaceId, id);
    return this.get(workspaceId, id);
  }
}
