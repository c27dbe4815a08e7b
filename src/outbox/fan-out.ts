import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { Database } from '../database/sql';
import { DeliveriesStore, NewDelivery } from './deliveries.store';
import { EndpointsStore } from './endpoints.store';
import { EventsStore } from './events.store';
import { Look } from './look';
import { MailingBatch, runMailings } from './mailing';
import { endpointBody, OutboxEvent, statusChangeForVoters, VOTER_EMAIL_BODY } from './messages';
import { VoterMailingsStore } from './voter-mailings.store';

export const FAN_OUT_BATCH = 200;
/** Voters per batch of a status change's emails: each batch is one transaction. */
export const VOTER_MAIL_BATCH = 500;

/**
 * Turns committed events into deliveries, in batches: one per endpoint that was enabled and
 * subscribed to the type when the event happened (the event row keeps their ids), and for a
 * real status change one email per voter with an address (not its author, not unsubscribed)
 * when the board has `notify_voters` on. A free workspace gets neither. Each endpoint's body
 * is serialised here, once; a voter's email is made with an empty body (VOTER_EMAIL_BODY) and
 * rendered when sent, from the event's data as recorded. The voters' emails are not made in the event's batch: it records a
 * mailing job (voter_mailings) with the dispatch, and `runMailings` makes the emails in keyset
 * batches of `batchSize` voters, each batch one transaction, the job's progress with it.
 */
@Injectable()
export class FanOut {
  private readonly logger = new Logger('Outbox');

  constructor(
    private readonly db: Database,
    private readonly events: EventsStore,
    private readonly endpoints: EndpointsStore,
    private readonly deliveries: DeliveriesStore,
    private readonly mailings: VoterMailingsStore,
  ) {}

  /** Voters per batch of a status change's emails (VOTER_MAIL_BATCH; a test makes it small). */
  batchSize = VOTER_MAIL_BATCH;
  /** Whether a fan-out since the last look made a voter mailing (takeMailingsMade). */
  private mailingsMade = false;

  /** Whether a fan-out made a voter mailing since the last call: its first batches are then worth a pass now. */
  takeMailingsMade(): boolean {
    const made = this.mailingsMade;
    this.mailingsMade = false;
    return made;
  }

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
      let inline = 0; // voter emails made in this transaction
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
            // The first voters (up to what is left of this transaction's `batchSize`) are
            // emailed here, with the event; any others in batches afterwards (runMailings),
            // from a job recorded here, from the last address emailed here.
            const limit = this.batchSize - inline;
            const voters =
              limit > 0
                ? await this.deliveries.votersToEmail(tx, event.workspace_id, change.post.id, change.post.board.id!, event.actor_id, '', limit)
                : [];
            inline += voters.length;
            for (const to of voters) {
              add(event, randomUUID(), null, to, VOTER_EMAIL_BODY);
            }
            if (voters.length < limit) continue;
            this.mailingsMade = true;
            this.mailings.insert(tx, {
              mail_after: voters.length > 0 ? voters[voters.length - 1] : '',
              workspace_id: event.workspace_id,
              event_id: event.id,
              event_type: event.type,
              event_created_at: event.created_at,
              post_id: String(change.post.id),
              board_id: change.post.board.id!,
              actor_id: event.actor_id,
              data: event.data,
            });
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

  /**
   * Makes voter emails of the status changes fanned out, batch after batch, up to `batches`
   * batches. Answers whether more batches wait, and the workspaces whose emails were queued
   * (whose claims to wake).
   */
  async runMailings(batches = 20): Promise<{ more: boolean; mailed: Set<string> }> {
    const mailed = new Set<string>();
    const more = await runMailings(await this.mailings.list(batches), batches, async (job) => {
      const batch = await this.mailBatch(job.workspace_id, job.event_id);
      if (batch !== 'held') mailed.add(job.workspace_id);
      return batch;
    });
    return { more, mailed };
  }

  /**
   * One batch of a status change's voter emails, in one transaction: the next `batchSize`
   * voters by address after the last one queued (the voters as votersToEmail gives them: with
   * an address, not the actor, not unsubscribed, the board's notify_voters on), each email
   * with an empty body (rendered when sent), and where the batches stand. A crash between batches loses
   * nothing: the next batch begins after the last address committed.
   */
  private async mailBatch(workspaceId: string, eventId: string): Promise<MailingBatch> {
    return this.db.transaction(async (tx) => {
      const job = await this.mailings.lock(tx, workspaceId, eventId);
      if (!job) return 'held';
      const voters = await this.deliveries.votersToEmail(tx, workspaceId, job.post_id, job.board_id, job.actor_id, job.mail_after, this.batchSize);
      if (voters.length > 0) {
        this.deliveries.insertMany(
          tx,
          voters.map((to) => ({
            workspace_id: workspaceId,
            id: randomUUID(),
            endpoint_id: null,
            recipient: to,
            event_id: eventId,
            event_type: job.event_type,
            event_created_at: job.event_created_at,
            body: VOTER_EMAIL_BODY,
          })),
        );
      }
      const done = voters.length < this.batchSize;
      this.mailings.mailed(tx, workspaceId, eventId, done ? null : voters[voters.length - 1]);
      return done ? 'done' : 'more';
    });
  }
}
