import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { isDistributed } from '../database/distribution';
import { inPreparedTransaction, preparedRows, sqlInt, sqlText, sqlUuids, updateReturning } from '../database/queries';
import { EndpointsService } from '../webhooks/endpoints.service';
import { ClaimedDelivery, isChat, Outcome, Sendable } from './channel';
import { Lease } from './lease';

/** Failures in a row after which an endpoint is turned off. */
export const MAX_CONSECUTIVE_FAILURES = 20;
/** Slack and Discord: at most one message per second per channel. */
export const CHAT_PACE_MS = 1_000;

/**
 * Writes down what became of each claimed delivery: its attempt row, then delivered, a retry on
 * the schedule, or its end; and for its endpoint the failures in a row (which turn it off at 20)
 * and a chat channel's pace. Only the lease's owner moves a delivery on.
 */
@Injectable()
export class Recorder {
  private readonly logger = new Logger('Outbox');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly endpoints: EndpointsService,
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
    if (outcome.ok && !isChat(sendable.kind)) return this.successes.add({ sendable, at, outcome });
    return this.recordOne(sendable, at, outcome);
  }

  private async recordOne({ delivery, kind, endpoint }: Sendable, at: Date, outcome: Outcome): Promise<void> {
    const attempts = delivery.attempt_count + 1;
    const ended = new Date(at.getTime() + outcome.durationMs);
    const key = [delivery.workspace_id, delivery.id];
    await this.db.transaction(async (manager) => {
      // Locked first: deleting the endpoint (and with it this row) waits until the attempt is written.
      const [row]: { locked_by: string | null }[] = await manager.query(
        `SELECT locked_by FROM webhook_deliveries WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
        key,
      );
      if (!row) return;
      await manager.query(
        `INSERT INTO delivery_attempts (workspace_id, delivery_id, at, duration_ms, status_code, error, response_body)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [...key, at, outcome.durationMs, outcome.statusCode, outcome.error, outcome.responseBody],
      );
      // Slack and Discord say how long to wait; a day at most, whatever they say.
      const waitMs =
        isChat(kind) && outcome.statusCode === 429 && outcome.retryAfterMs !== null ? Math.min(outcome.retryAfterMs, 86_400_000) : null;
      if (endpoint && isChat(kind)) {
        // The channel's next message leaves a second after this one ended (so they also arrive a
        // second apart), or after the wait a 429 asked for.
        await manager.query(
          `UPDATE webhook_endpoints SET next_send_at = GREATEST(next_send_at, $3::timestamptz) WHERE workspace_id = $1 AND id = $2`,
          [delivery.workspace_id, endpoint.id, new Date(ended.getTime() + Math.max(CHAT_PACE_MS, waitMs ?? 0))],
        );
      }
      if (row.locked_by !== this.lease.owner) return; // the lease ran out and another processor owns it now
      if (outcome.ok) {
        await manager.query(
          `UPDATE webhook_deliveries SET status = 'delivered', reason = NULL, delivered_at = now(), attempt_count = $3,
                  next_attempt_at = NULL, locked_by = NULL, locked_until = NULL
            WHERE workspace_id = $1 AND id = $2`,
          [...key, attempts],
        );
        if (endpoint) {
          await manager.query(
            `UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE workspace_id = $1 AND id = $2 AND consecutive_failures <> 0`,
            [delivery.workspace_id, endpoint.id],
          );
        }
        return;
      }
      const delay = this.config.webhookRetrySchedule[attempts - 1];
      const next = delay === undefined ? null : Math.max(delay, waitMs ?? 0);
      // The retry's time is computed here: Citus takes no stable function (timestamptz + interval) in a CASE.
      await manager.query(
        `UPDATE webhook_deliveries
            SET attempt_count = $3, locked_by = NULL, locked_until = NULL, status = $4, reason = $5, next_attempt_at = $6
          WHERE workspace_id = $1 AND id = $2`,
        next === null
          ? [...key, attempts, 'failed', 'retries_exhausted', null]
          : [...key, attempts, 'pending', null, new Date(ended.getTime() + next)],
      );
      if (!endpoint) return;
      const ref = { workspaceId: delivery.workspace_id, id: endpoint.id };
      const [counted] = await updateReturning<{ consecutive_failures: number; enabled: boolean }>(
        manager,
        `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1
          WHERE workspace_id = $1 AND id = $2 RETURNING consecutive_failures, enabled`,
        [ref.workspaceId, ref.id],
      );
      let off = !counted?.enabled;
      if (!off && isChat(kind) && (outcome.statusCode === 404 || outcome.statusCode === 410)) {
        // The channel or its webhook is gone: retrying cannot help.
        await this.endpoints.disable(manager, ref, 'gone');
        this.logger.warn(`Endpoint ${endpoint.id} turned off: ${kind} answered ${outcome.statusCode}.`);
        off = true;
      } else if (!off && counted!.consecutive_failures >= MAX_CONSECUTIVE_FAILURES) {
        await this.endpoints.disable(manager, ref, 'consecutive_failures');
        this.logger.warn(`Endpoint ${endpoint.id} turned off after ${MAX_CONSECUTIVE_FAILURES} failures in a row.`);
        off = true;
      }
      // Turned off now, or while this attempt was under way: it is not tried again.
      if (off) {
        await manager.query(
          `UPDATE webhook_deliveries SET status = 'cancelled', reason = 'endpoint_disabled', next_attempt_at = NULL
            WHERE workspace_id = $1 AND id = $2 AND status = 'pending'`,
          key,
        );
      }
    });
  }

  private readonly successes = new Batch<{ sendable: Sendable; at: Date; outcome: Outcome }>((items) => this.recordSuccesses(items));

  /**
   * Successful attempts to own servers and voter emails, in one statement: their attempt rows,
   * `delivered`, and their endpoints' failures in a row back to 0, as `recordOne` would write
   * each of them. The deliveries are locked first (in id order), so that deleting an endpoint
   * (and its deliveries) waits until the attempts are written; one deleted before is skipped.
   */
  private async recordSuccesses(items: { sendable: Sendable; at: Date; outcome: Outcome }[]): Promise<void> {
    if (!(await isDistributed(this.db))) return this.recordSuccessesOf(items);
    // On Citus a transaction per workspace (the batch's rows are several shards').
    const byWorkspace = new Map<string, typeof items>();
    for (const item of items) {
      const id = item.sendable.delivery.workspace_id;
      byWorkspace.set(id, [...(byWorkspace.get(id) ?? []), item]);
    }
    for (const [workspaceId, of] of byWorkspace) await this.recordWorkspaceSuccesses(workspaceId, of);
  }

  /**
   * One workspace's successes on Citus, as `recordSuccesses` writes them, in a transaction of
   * single-shard statements, in two round trips: the deliveries locked; then the attempts, the
   * deliveries and the endpoints written, with the commit. (As one statement, Citus would plan
   * its CTEs apart and ship their rows between nodes.)
   */
  private async recordWorkspaceSuccesses(workspaceId: string, items: { sendable: Sendable; at: Date; outcome: Outcome }[]): Promise<void> {
    const ws = `${sqlText(workspaceId)}::uuid`;
    const orNull = <T>(value: T | null, literal: (v: T) => string) => (value === null ? 'NULL' : literal(value));
    await inPreparedTransaction(this.db, async (tx) => {
      const [locked] = (await tx.batch([
        `SELECT id, locked_by FROM webhook_deliveries WHERE workspace_id = ${ws} AND id = ANY (${sqlUuids(items.map((i) => i.sendable.delivery.id))})
          ORDER BY id FOR UPDATE`,
      ])) as [{ id: string; locked_by: string | null }[]];
      const owner = new Map(locked.map((row) => [row.id, row.locked_by]));
      const present = items.filter((i) => owner.has(i.sendable.delivery.id));
      if (present.length === 0) return;
      const rows = present.map(
        ({ sendable, at, outcome }) =>
          `(${ws}, ${sqlText(sendable.delivery.id)}::uuid, ${sqlText(at.toISOString())}::timestamptz, ${sqlInt(outcome.durationMs)}, ` +
          `${orNull(outcome.statusCode, sqlInt)}, ${orNull(outcome.error, sqlText)}, ${orNull(outcome.responseBody, sqlText)})`,
      );
      const mine = present.filter((i) => owner.get(i.sendable.delivery.id) === this.lease.owner);
      const byAttempts = new Map<number, string[]>();
      for (const i of mine) {
        const n = i.sendable.delivery.attempt_count + 1;
        byAttempts.set(n, [...(byAttempts.get(n) ?? []), i.sendable.delivery.id]);
      }
      const endpoints = [...new Set(mine.flatMap((i) => (i.sendable.endpoint ? [i.sendable.endpoint.id] : [])))];
      await tx.batch(
        [
          `INSERT INTO delivery_attempts (workspace_id, delivery_id, at, duration_ms, status_code, error, response_body) VALUES ${rows.join(', ')}`,
          ...[...byAttempts].map(
            ([attempts, ids]) =>
              `UPDATE webhook_deliveries SET status = 'delivered', reason = NULL, delivered_at = now(), attempt_count = ${sqlInt(attempts)},
                      next_attempt_at = NULL, locked_by = NULL, locked_until = NULL
                WHERE workspace_id = ${ws} AND id = ANY (${sqlUuids(ids)}) AND locked_by = ${sqlText(this.lease.owner)}`,
          ),
          ...(endpoints.length === 0
            ? []
            : [
                `UPDATE webhook_endpoints SET consecutive_failures = 0
                  WHERE workspace_id = ${ws} AND id = ANY (${sqlUuids(endpoints)}) AND consecutive_failures <> 0`,
              ]),
        ],
        true,
      );
    });
  }

  /** `recordSuccesses` on one server: every workspace's in one statement. */
  private async recordSuccessesOf(items: { sendable: Sendable; at: Date; outcome: Outcome }[]): Promise<void> {
    await preparedRows(
      this.db,
      'record_successes',
      `WITH done AS (
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::integer[], $5::integer[], $6::text[], $7::text[],
                              $8::integer[], $9::uuid[])
                    AS u(workspace_id, id, at, duration_ms, status_code, error, response_body, attempts, endpoint_id)
       ),
       locked AS (
         SELECT d.workspace_id, d.id, d.locked_by FROM webhook_deliveries d
          WHERE (d.workspace_id, d.id) IN (SELECT workspace_id, id FROM done) ORDER BY d.id FOR UPDATE
       ),
       attempts AS (
         INSERT INTO delivery_attempts (workspace_id, delivery_id, at, duration_ms, status_code, error, response_body)
         SELECT u.workspace_id, u.id, u.at, u.duration_ms, u.status_code, u.error, u.response_body
           FROM done u JOIN locked l ON l.workspace_id = u.workspace_id AND l.id = u.id
       ),
       delivered AS (
         UPDATE webhook_deliveries d SET status = 'delivered', reason = NULL, delivered_at = now(), attempt_count = u.attempts,
                next_attempt_at = NULL, locked_by = NULL, locked_until = NULL
           FROM done u JOIN locked l ON l.workspace_id = u.workspace_id AND l.id = u.id
          WHERE d.workspace_id = u.workspace_id AND d.id = u.id AND l.locked_by = $10
          RETURNING u.workspace_id, u.endpoint_id
       )
       UPDATE webhook_endpoints e SET consecutive_failures = 0
         FROM (SELECT DISTINCT workspace_id, endpoint_id FROM delivered WHERE endpoint_id IS NOT NULL) x
        WHERE e.workspace_id = x.workspace_id AND e.id = x.endpoint_id AND e.consecutive_failures <> 0`,
      [
        items.map((i) => i.sendable.delivery.workspace_id),
        items.map((i) => i.sendable.delivery.id),
        items.map((i) => i.at.toISOString()),
        items.map((i) => i.outcome.durationMs),
        items.map((i) => i.outcome.statusCode),
        items.map((i) => i.outcome.error),
        items.map((i) => i.outcome.responseBody),
        items.map((i) => i.sendable.delivery.attempt_count + 1),
        items.map((i) => i.sendable.endpoint?.id ?? null),
        this.lease.owner,
      ],
    );
  }

  /** Ends a claimed delivery without an attempt. */
  async finish(delivery: ClaimedDelivery, status: 'failed' | 'cancelled', reason: string): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries SET status = $3, reason = $4, next_attempt_at = NULL, locked_by = NULL, locked_until = NULL
        WHERE workspace_id = $1 AND id = $2 AND locked_by = $5`,
      [delivery.workspace_id, delivery.id, status, reason, this.lease.owner],
    );
  }

  /** Gives claimed deliveries back, untried and uncounted, to be claimed again from `until` on. */
  async defer(deliveries: ClaimedDelivery[], until: Date): Promise<void> {
    if (deliveries.length === 0) return;
    if (await isDistributed(this.db)) {
      // On Citus one single-shard statement per workspace.
      for (const workspaceId of new Set(deliveries.map((d) => d.workspace_id))) {
        await this.db.query(
          `UPDATE webhook_deliveries SET next_attempt_at = $3, locked_by = NULL, locked_until = NULL
            WHERE workspace_id = $1 AND id = ANY ($2::uuid[]) AND locked_by = $4`,
          [workspaceId, deliveries.filter((d) => d.workspace_id === workspaceId).map((d) => d.id), until, this.lease.owner],
        );
      }
      return;
    }
    await this.db.query(
      `UPDATE webhook_deliveries SET next_attempt_at = $3, locked_by = NULL, locked_until = NULL
        WHERE (workspace_id, id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[])) AND locked_by = $4`,
      [deliveries.map((d) => d.workspace_id), deliveries.map((d) => d.id), until, this.lease.owner],
    );
  }

  /**
   * After an attempt whose outcome could not be recorded: counts it and tries again on the
   * schedule (failed when spent), so that a delivery never loops unrecorded.
   */
  async release(delivery: ClaimedDelivery): Promise<void> {
    const delay = this.config.webhookRetrySchedule[delivery.attempt_count];
    // Two statements, not one with CASE: Citus takes no stable function (now() + …) in a CASE.
    await this.db.query(
      delay === undefined
        ? `UPDATE webhook_deliveries
              SET attempt_count = attempt_count + 1, locked_by = NULL, locked_until = NULL,
                  status = 'failed', reason = 'retries_exhausted', next_attempt_at = NULL
            WHERE workspace_id = $1 AND id = $2 AND locked_by = $3`
        : `UPDATE webhook_deliveries
              SET attempt_count = attempt_count + 1, locked_by = NULL, locked_until = NULL,
                  status = 'pending', reason = NULL, next_attempt_at = now() + $4 * interval '1 millisecond'
            WHERE workspace_id = $1 AND id = $2 AND locked_by = $3`,
      [delivery.workspace_id, delivery.id, this.lease.owner, ...(delay === undefined ? [] : [delay])],
    );
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
    private readonly max = 256,
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
