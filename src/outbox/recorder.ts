import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Database } from '../database/sql';
import { CHAT_PACE_MS, ClaimedDelivery, isChat, Outcome, Sendable } from './channel';
import { DeliveriesStore, Success } from './deliveries.store';
import { EndpointsStore } from './endpoints.store';
import { Lease } from './lease';
import { OutboxEndpoints } from './outbox-endpoints.service';

/** Failures in a row after which an endpoint is turned off. */
export const MAX_CONSECUTIVE_FAILURES = 20;
/** The longest pause between two tries of a batch of arrivals' write. */
const SUCCESS_WRITE_PAUSE_MS = 1_000;
/** Arrivals written in one statement at most (the rest wait for the next). */
export const SUCCESSES_PER_WRITE = 256;

/**
 * Writes down what became of each claimed delivery: its attempt row, then delivered, a retry on
 * the schedule, or its end; and for its endpoint the failures in a row (which turn it off at 20)
 * and a chat channel's pace. Only the lease's owner moves a delivery on.
 */
@Injectable()
export class Recorder {
  private readonly logger = new Logger('Outbox');

  constructor(
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly deliveries: DeliveriesStore,
    private readonly endpointRows: EndpointsStore,
    private readonly endpoints: OutboxEndpoints,
    private readonly lease: Lease,
  ) {}

  /**
   * Records an attempt and what follows from it: a failure is retried on the schedule (a 429 from
   * Slack or Discord after the wait it asked for), 404 or 410 from Slack or Discord turns the
   * endpoint off at once, and 20 failures in a row turn any endpoint off. A delivery that was
   * under way when its endpoint was turned off keeps its outcome if it arrived, and is cancelled
   * if it did not; one whose endpoint was deleted meanwhile has nothing left to record.
   */
  async record(sendable: Sendable, at: Date, outcome: Outcome): Promise<void> {
    // Most attempts succeed and change nothing but their own rows: those are written together.
    if (outcome.ok && !isChat(sendable.kind)) {
      return this.successes.add({ delivery: sendable.delivery, endpointId: sendable.endpoint?.id ?? null, at, outcome });
    }
    return this.recordOne(sendable, at, outcome);
  }

  private async recordOne({ delivery, kind, endpoint }: Sendable, at: Date, outcome: Outcome): Promise<void> {
    const attempts = delivery.attempt_count + 1;
    const ended = new Date(at.getTime() + outcome.durationMs);
    const { workspace_id: workspaceId, id } = delivery;
    await this.db.transaction(async (tx) => {
      // Locked first: deleting the endpoint (and with it this row) waits until the attempt is written.
      const row = await this.deliveries.lockForAttempt(tx, workspaceId, id);
      if (!row) return;
      this.deliveries.insertAttempt(tx, { workspaceId, deliveryId: id, at, outcome });
      // Slack and Discord say how long to wait; a day at most, whatever they say.
      const waitMs =
        isChat(kind) && outcome.statusCode === 429 && outcome.retryAfterMs !== null ? Math.min(outcome.retryAfterMs, 86_400_000) : null;
      if (endpoint && isChat(kind)) {
        // The channel's next message leaves a second after this one ended (so they also arrive a
        // second apart), or after the wait a 429 asked for.
        this.endpointRows.pace(tx, workspaceId, endpoint.id, new Date(ended.getTime() + Math.max(CHAT_PACE_MS, waitMs ?? 0)));
      }
      if (row.locked_by !== this.lease.owner) return; // the lease ran out and another processor owns it now
      if (outcome.ok) {
        this.deliveries.markDelivered(tx, workspaceId, id, attempts);
        if (endpoint) this.endpointRows.resetFailures(tx, workspaceId, [endpoint.id]);
        return;
      }
      const delay = this.config.webhookRetrySchedule[attempts - 1];
      const next = delay === undefined ? null : Math.max(delay, waitMs ?? 0);
      // The retry's time is computed here: Citus takes no stable function (timestamptz + interval) in a CASE.
      this.deliveries.markFailedAttempt(tx, workspaceId, id, attempts, next === null ? null : new Date(ended.getTime() + next));
      if (!endpoint) return;
      const counted = await this.endpointRows.countFailure(tx, workspaceId, endpoint.id);
      let off = !counted?.enabled;
      if (!off && isChat(kind) && (outcome.statusCode === 404 || outcome.statusCode === 410)) {
        // The channel or its webhook is gone: retrying cannot help.
        this.endpoints.disable(tx, workspaceId, endpoint.id, 'gone');
        this.logger.warn(`Endpoint ${endpoint.id} turned off: ${kind} answered ${outcome.statusCode}.`);
        off = true;
      } else if (!off && counted!.consecutive_failures >= MAX_CONSECUTIVE_FAILURES) {
        this.endpoints.disable(tx, workspaceId, endpoint.id, 'consecutive_failures');
        this.logger.warn(`Endpoint ${endpoint.id} turned off after ${MAX_CONSECUTIVE_FAILURES} failures in a row.`);
        off = true;
      }
      // Turned off now, or while this attempt was under way: it is not tried again.
      if (off) this.deliveries.cancelIfPending(tx, workspaceId, id);
    });
  }

  /**
   * Successful attempts to own servers and voter emails, written together (DeliveriesStore.recordSuccesses):
   * their attempt rows, `delivered`, and their endpoints' failures in a row back to 0.
   */
  private readonly successes = new Batch<Success>((items) => this.writeSuccesses(items));

  /**
   * Writes arrivals, trying again (a pause growing between tries, up to a second) when the write
   * fails: a statement timeout on a busy server, a connection lost; for as long as a lease
   * lasts. The sends arrived: an arrival written late is better than giving the attempt up to
   * `release`, which sends each of them again (this processor's claims never take them while
   * it writes them: ClaimsStore). Only a write that failed for a whole lease gives up.
   */
  private async writeSuccesses(items: Success[]): Promise<void> {
    const giveUpAt = Date.now() + this.lease.ms;
    for (let tried = 1; ; tried++) {
      try {
        return await this.deliveries.recordSuccesses(items, this.lease.owner);
      } catch (error) {
        const pause = Math.min(250 * tried, SUCCESS_WRITE_PAUSE_MS);
        if (Date.now() + pause >= giveUpAt) throw error;
        this.logger.warn(`${items.length} arrivals could not be written (${(error as Error).message}); trying again`);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /** Ends a claimed delivery without an attempt. */
  finish(delivery: ClaimedDelivery, status: 'failed' | 'cancelled', reason: string): Promise<void> {
    return this.deliveries.finish(delivery, status, reason, this.lease.owner);
  }

  /** Gives claimed deliveries back, untried and uncounted, to be claimed again from `until` on. */
  async defer(deliveries: ClaimedDelivery[], until: Date): Promise<void> {
    if (deliveries.length > 0) await this.deliveries.defer(deliveries, until, this.lease.owner);
  }

  /**
   * After an attempt whose outcome could not be recorded: counts it and tries again on the
   * schedule (failed when spent), so that a delivery never loops unrecorded.
   */
  release(delivery: ClaimedDelivery): Promise<void> {
    return this.deliveries.release(delivery, this.config.webhookRetrySchedule[delivery.attempt_count], this.lease.owner);
  }
}

/**
 * Gathers what arrives while one write is under way (or in the same turn of the event loop) and
 * writes it together: each caller's promise settles with the write that carried its item.
 */
class Batch<T> {
  private waiting: { item: T; done: (error?: unknown) => void }[] = [];
  private writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly max = SUCCESSES_PER_WRITE,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ item, done: (error) => (error ? reject(error) : resolve()) });
      if (!this.writing) {
        this.writing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.waiting.length > 0) {
      const taken = this.waiting.splice(0, this.max);
      try {
        await this.write(taken.map((w) => w.item));
        for (const w of taken) w.done();
      } catch (error) {
        for (const w of taken) w.done(error);
      }
    }
    this.writing = false;
  }
}
