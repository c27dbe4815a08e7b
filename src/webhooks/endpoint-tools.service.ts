import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError } from '../common/app-error';
import { updateReturning } from '../database/queries';
import { DiscordChannel, SlackChannel } from '../notifications/chat.channels';
import { chatPingMessage } from '../notifications/chat-messages';
import type { Channel, ClaimedDelivery, Outcome } from '../outbox/channel';
import { Quota } from '../outbox/quota';
import { PLANS, isPlan } from '../workspaces/plans';
import { DeliveriesService } from './deliveries.service';
import { DeliveryResponse } from './delivery.mapper';
import { EndpointsService } from './endpoints.service';
import { OUTBOX_CHANNEL } from '../outbox/events.store';
import { WebhookChannel } from './webhook.channel';

/** How far back `recover` reaches. */
export const RECOVER_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
/** Slack and Discord: the outbox's pace of one message a second per channel holds after a test too. */
const CHAT_PACE_MS = 1_000;

/** What a user does to an endpoint beyond configuring it: test it now, and recover what failed. */
@Injectable()
export class EndpointToolsService {
  private readonly channels: Record<string, Channel>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly endpoints: EndpointsService,
    private readonly deliveries: DeliveriesService,
    private readonly quota: Quota,
    webhook: WebhookChannel,
    slack: SlackChannel,
    discord: DiscordChannel,
  ) {
    this.channels = { webhook, slack, discord };
  }

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
      attempt_count: 0,
      plan: owner.plan,
    };
    delivery.body =
      endpoint.kind === 'webhook'
        ? JSON.stringify({ id: delivery.id, type: 'ping', created_at: createdAt.toISOString(), data: { endpoint_id: endpoint.id } })
        : JSON.stringify(chatPingMessage(endpoint.kind));
    const at = new Date();
    const target = (await this.endpoints.targets([{ workspace_id: owner.workspaceId, endpoint_id: endpoint.id }])).get(endpoint.id);
    const outcome: Outcome =
      !target || target.unreadable
        ? { ok: false, statusCode: null, error: 'secret_unreadable', durationMs: 0, responseBody: null, retryAfterMs: null }
        : await this.channels[endpoint.kind].send(delivery, target);
    await this.db.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_type, event_created_at, body,
                                         status, attempt_count, created_at, delivered_at)
         VALUES ($1, $2, $3, $2, 'ping', $4, $5, $6, 1, $4, $7)`,
        [owner.workspaceId, delivery.id, endpoint.id, createdAt, delivery.body, outcome.ok ? 'delivered' : 'failed', outcome.ok ? new Date() : null],
      );
      await manager.query(
        `INSERT INTO delivery_attempts (workspace_id, delivery_id, at, duration_ms, status_code, error, response_body)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [owner.workspaceId, delivery.id, at, outcome.durationMs, outcome.statusCode, outcome.error, outcome.responseBody],
      );
      if (endpoint.kind !== 'webhook') {
        await manager.query(
          `UPDATE webhook_endpoints SET next_send_at = GREATEST(next_send_at, $3::timestamptz) WHERE workspace_id = $1 AND id = $2`,
          [owner.workspaceId, endpoint.id, new Date(at.getTime() + outcome.durationMs + CHAT_PACE_MS)],
        );
      }
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
    return this.db.transaction(async (manager) => {
      const [row]: { enabled: boolean }[] = await manager.query(
        `SELECT enabled FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2 FOR SHARE`,
        [workspaceId, endpoint.id],
      );
      if (!row?.enabled) throw new AppError('conflict', 'The endpoint is turned off; turn it on before recovering its deliveries.');
      const scheduled = await updateReturning<{ id: string }>(
        manager,
        `UPDATE webhook_deliveries SET status = 'pending', reason = NULL, next_attempt_at = now()
          WHERE workspace_id = $1 AND endpoint_id = $2 AND status = 'failed' AND event_type <> 'ping' AND created_at >= $3
          RETURNING id`,
        [workspaceId, endpoint.id, since],
      );
      // Naming the workspace: on Citus the processors look there alone (outbox/look.ts).
      if (scheduled.length > 0) await manager.query(`SELECT pg_notify($1, $2::text)`, [OUTBOX_CHANNEL, workspaceId]);
      return scheduled.length;
    });
  }
}
