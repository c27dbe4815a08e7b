import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { chatPingMessage } from '../notifications/chat-messages';
import { ClaimedDelivery, OutboxChannels, Outcome } from '../outbox/channel';
import { OutboxDeliveries } from '../outbox/outbox-deliveries.service';
import { Quota } from '../outbox/quota';
import { PLANS, isPlan } from '../workspaces/plans';
import { DeliveriesService } from './deliveries.service';
import { DeliveryResponse } from './delivery.mapper';
import { EndpointsService } from './endpoints.service';

/** How far back `recover` reaches. */
export const RECOVER_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** What a user does to an endpoint beyond configuring it: test it now, and recover what failed. */
@Injectable()
export class EndpointToolsService {
  constructor(
    private readonly endpoints: EndpointsService,
    private readonly deliveries: DeliveriesService,
    private readonly outbox: OutboxDeliveries,
    private readonly quota: Quota,
    private readonly channels: OutboxChannels,
  ) {}

  /**
   * Sends a `ping` now, outside the outbox but through its channels: to an own server signed
   * like every delivery, to Slack or Discord a one-line test message. One attempt, never
   * retried, counted against the month's quota, and kept in the delivery log. It works on an
   * endpoint that is turned off (to check a receiver before turning it back on) and changes
   * nothing about the endpoint's state.
   */
  async test(owner: { workspaceId: string; plan: string }, id: string): Promise<DeliveryResponse> {
    const endpoint = await this.endpoints.get(owner.workspaceId, id);
    if ((await this.quota.reserveAttempts(owner.workspaceId, owner.plan, 1)) === 0) {
      const quota = isPlan(owner.plan) ? PLANS[owner.plan].deliveriesPerMonth : 0;
      throw new AppError('plan_required', `This month's ${quota} delivery attempts are spent; they start again on the 1st (UTC).`);
    }
    const createdAt = new Date();
    const delivery: ClaimedDelivery = {
      workspace_id: owner.workspaceId,
      id: randomUUID(),
      endpoint_id: endpoint.id,
      recipient: null,
      event_type: 'ping',
      event_created_at: createdAt,
      body: '',
      event_data: null,
      attempt_count: 0,
      plan: owner.plan,
    };
    delivery.body =
      endpoint.kind === 'webhook'
        ? JSON.stringify({ id: delivery.id, type: 'ping', created_at: createdAt.toISOString(), data: { endpoint_id: endpoint.id } })
        : JSON.stringify(chatPingMessage(endpoint.kind));
    const at = new Date();
    const target = (await this.endpoints.targets(owner.workspaceId, [endpoint.id])).get(endpoint.id);
    const outcome: Outcome =
      !target || target.unreadable
        ? { ok: false, statusCode: null, error: 'secret_unreadable', durationMs: 0, responseBody: null, retryAfterMs: null }
        : await this.channels.get(endpoint.kind).send(delivery, target);
    await this.outbox.recordTest({
      workspaceId: owner.workspaceId,
      id: delivery.id,
      endpointId: endpoint.id,
      chat: endpoint.kind !== 'webhook',
      createdAt,
      body: delivery.body,
      at,
      outcome,
    });
    return this.deliveries.get(owner.workspaceId, delivery.id);
  }

  /**
   * Schedules again, now, every delivery of the endpoint that ended `failed` since `since` (at
   * most 7 days back), tests excepted. Each gets one more attempt, and what remained of its
   * retries. Answers how many.
   */
  async recover(workspaceId: string, id: string, since: Date): Promise<number> {
    if (Date.now() - since.getTime() > RECOVER_WINDOW_MS) throw AppError.invalid('since', 'must be within the last 7 days');
    const endpoint = await this.endpoints.get(workspaceId, id);
    return this.outbox.recover(workspaceId, endpoint.id, since);
  }
}
