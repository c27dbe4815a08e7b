import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { SecretBox } from '../common/secret-box';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Database } from '../database/sql';
import { unsubscribeToken } from '../notifications/unsubscribe-token';
import { DeliveriesStore, NewDelivery } from './deliveries.store';
import { EndpointsStore } from './endpoints.store';
import { EventsStore } from './events.store';
import { Look } from './look';
import { emailBody, endpointBody, OutboxEvent, statusChangeForVoters } from './messages';

export const FAN_OUT_BATCH = 200;

/**
 * Turns committed events into deliveries, in batches: one per endpoint that was enabled and
 * subscribed to the type when the event happened (the event row keeps their ids), and for a
 * real status change one email per voter with an address (not its author, not unsubscribed)
 * when the board has `notify_voters` on. A free workspace gets neither. Each body is
 * serialised here, once.
 */
@Injectable()
export class FanOut {
  private readonly logger = new Logger('Outbox');

  constructor(
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly box: SecretBox,
    private readonly events: EventsStore,
    private readonly endpoints: EndpointsStore,
    private readonly deliveries: DeliveriesStore,
  ) {}

  /**
   * Fans out batch after batch of the scopes the engine takes them from (EventsStore.fanOutScopes:
   * on one server every workspace's oldest events at once, on Citus one workspace's at a time);
   * answers where events may still wait (a batch came back full): 'all', or the workspaces whose
   * batch was full (none: an empty set).
   */
  async run(look: Look = 'all'): Promise<Look> {
    const full = new Set<string>();
    for (const workspaceId of await this.events.fanOutScopes(look)) {
      if ((await this.runBatch(workspaceId)) < FAN_OUT_BATCH) continue;
      if (workspaceId === null) return 'all';
      full.add(workspaceId);
    }
    return full;
  }

  /** One batch: of every workspace's oldest events, or (`workspaceId`) of that one workspace's. */
  private async runBatch(workspaceId: string | null): Promise<number> {
    return this.db.transaction(async (tx) => {
      const events = await this.events.undispatched(tx, FAN_OUT_BATCH, workspaceId);
      if (events.length === 0) return 0;
      const endpoints = await this.endpoints.forEvents(tx, events, workspaceId);
      const made: NewDelivery[] = [];
      const add = (event: OutboxEvent, id: string, endpointId: string | null, recipient: string | null, body: string) =>
        made.push({
          workspace_id: event.workspace_id,
          id,
          endpoint_id: endpointId,
          recipient,
          event_id: event.id,
          event_type: event.type,
          event_created_at: event.created_at,
          body,
        });
      for (const event of events) {
        if (event.plan === 'free') continue;
        try {
          for (const endpoint of endpoints.get(event.id) ?? []) {
            const id = randomUUID();
            add(event, id, endpoint.id, null, endpointBody(endpoint.kind, id, event));
          }
          const change = statusChangeForVoters(event);
          if (change) {
            const voters = await this.deliveries.votersToEmail(tx, event.workspace_id, change.post.id, change.post.board.id!, event.actor_id);
            for (const to of voters) {
              add(event, randomUUID(), null, to, emailBody(change, to, this.unsubscribeUrl(event.workspace_id, to)));
            }
          }
        } catch (error) {
          // One event we cannot turn into messages must not hold back every other one.
          this.logger.error(`Event ${event.id} (${event.type}) could not be fanned out: ${(error as Error).message}`);
        }
      }
      this.deliveries.insertMany(tx, made);
      this.events.markDispatched(tx, events, workspaceId);
      return events.length;
    });
  }

  private unsubscribeUrl(workspaceId: string, email: string): string {
    return `${this.config.baseUrl}/email/unsubscribe/${unsubscribeToken(this.box, { workspaceId, email })}`;
  }
}
