import { Injectable } from '@nestjs/common';
import { Database, statement, Tx } from '../database/sql';
import type { ClaimedDelivery, Outcome } from './channel';
import { OUTBOX_CHANNEL } from './events.store';

/** A voter email's queue in outbox_queues: the workspace's mail (an endpoint delivery's queue is its endpoint). */
const MAIL_QUEUE = '00000000-0000-0000-0000-000000000000';
/** Brings queues forward in outbox_queues (the claim's ready-queue): made due at `excluded.due_at` at the latest. */
const BRING_FORWARD = `ON CONFLICT (workspace_id, queue) DO UPDATE SET due_at = least(outbox_queues.due_at, excluded.due_at)`;

/** A delivery as fan-out makes it: its body serialised once. */
export interface NewDelivery {
  workspace_id: string;
  id: string;
  endpoint_id: string | null;
  recipient: string | null;
  event_id: string;
  event_type: string;
  event_created_at: Date;
  body: string;
}

/** An email queued by hand (a sign-in code's), outside fan-out. */
export interface QueuedEmail {
  workspaceId: string;
  id: string;
  recipient: string;
  /** What it is about (a sign-in's id). */
  eventId: string;
  eventType: string;
  body: string;
}

/** One attempt, as delivery_attempts keeps it. */
export interface AttemptRow {
  workspaceId: string;
  deliveryId: string;
  at: Date;
  outcome: Pick<Outcome, 'durationMs' | 'statusCode' | 'error' | 'responseBody'>;
}

/** An attempt that arrived (own server or email), to be written with others (`recordSuccesses`). */
export interface Success {
  delivery: ClaimedDelivery;
  endpointId: string | null;
  at: Date;
  outcome: Outcome;
}

/**
 * webhook_deliveries and delivery_attempts: what each event became at each endpoint or inbox,
 * and each attempt. Moved on only by the processor that holds a delivery's lease (`owner`).
 */
@Injectable()
export class DeliveriesStore {
  protected static readonly NOTIFY = statement('delivery_notify', `SELECT pg_notify($1, $2::text)`);
  private static readonly QUEUE_EMAIL = statement(
    'delivery_queue_email',
    `INSERT INTO webhook_deliveries (workspace_id, id, recipient, event_id, event_type, event_created_at, body, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, now(), $6, now())`,
  );
  private static readonly INSERT_MANY = statement(
    'delivery_insert_many',
    `INSERT INTO webhook_deliveries
       (workspace_id, id, endpoint_id, recipient, event_id, event_type, event_created_at, body, next_attempt_at)
     SELECT w, i, e, r, ev, t, c, b, now()
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::timestamptz[], $8::text[])
            AS d(w, i, e, r, ev, t, c, b)
     ON CONFLICT DO NOTHING`,
  );
  private static readonly VOTERS_TO_EMAIL = statement(
    'delivery_voters_to_email',
    `SELECT DISTINCT p.email
       FROM votes v
       JOIN people p ON p.workspace_id = v.workspace_id AND p.id = v.person_id
       JOIN boards b ON b.workspace_id = v.workspace_id AND b.id = $3
      WHERE v.workspace_id = $1 AND v.post_id = $2 AND b.notify_voters
        AND p.email IS NOT NULL AND p.id IS DISTINCT FROM $4
        AND NOT EXISTS (SELECT 1 FROM people u WHERE u.workspace_id = v.workspace_id
                           AND u.email = p.email AND u.email_unsubscribed_at IS NOT NULL)
        AND p.email > $5
      ORDER BY p.email LIMIT $6`,
  );
  private static readonly LOCK = statement(
    'delivery_lock',
    `SELECT locked_by FROM webhook_deliveries WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
  );
  private static readonly INSERT_ATTEMPT = statement(
    'delivery_attempt_insert',
    `INSERT INTO delivery_attempts (workspace_id, delivery_id, at, duration_ms, status_code, error, response_body)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
  );
  private static readonly DELIVERED = statement(
    'delivery_delivered',
    `UPDATE webhook_deliveries SET status = 'delivered', reason = NULL, delivered_at = now(), attempt_count = $3,
            next_attempt_at = NULL, locked_by = NULL, locked_until = NULL
      WHERE workspace_id = $1 AND id = $2`,
  );
  // The retry's time is computed by the caller: Citus takes no stable function (timestamptz + interval) in a CASE.
  private static readonly ATTEMPTED = statement(
    'delivery_attempted',
    `UPDATE webhook_deliveries
        SET attempt_count = $3, locked_by = NULL, locked_until = NULL, status = $4, reason = $5, next_attempt_at = $6
      WHERE workspace_id = $1 AND id = $2`,
  );
  private static readonly CANCEL_IF_PENDING = statement(
    'delivery_cancel_if_pending',
    `UPDATE webhook_deliveries SET status = 'cancelled', reason = 'endpoint_disabled', next_attempt_at = NULL
      WHERE workspace_id = $1 AND id = $2 AND status = 'pending'`,
  );
  // A delivery under way is left to its processor: it records what came of the attempt (a
  // success stays a success) and cancels it if it failed.
  private static readonly CANCEL_PENDING_OF = statement(
    'delivery_cancel_pending_of',
    `UPDATE webhook_deliveries SET status = 'cancelled', reason = 'endpoint_disabled', next_attempt_at = NULL,
            locked_by = NULL, locked_until = NULL
      WHERE workspace_id = $1 AND endpoint_id = $2 AND status = 'pending'
        AND (locked_by IS NULL OR locked_until < now())`,
  );
  /**
   * Successful attempts, every workspace's in one statement: their attempt rows, `delivered`,
   * and their endpoints' failures in a row back to 0, as `recordOne` would write each of them.
   * The deliveries are locked first (in id order), so that deleting an endpoint (and its
   * deliveries) waits until the attempts are written; one deleted before is skipped.
   */
  private static readonly RECORD_SUCCESSES = statement(
    'delivery_record_successes',
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
  );
  private static readonly FINISH = statement(
    'delivery_finish',
    `UPDATE webhook_deliveries SET status = $3, reason = $4, next_attempt_at = NULL, locked_by = NULL, locked_until = NULL
      WHERE workspace_id = $1 AND id = $2 AND locked_by = $5`,
  );
  private static readonly DEFER = statement(
    'delivery_defer',
    `UPDATE webhook_deliveries SET next_attempt_at = $3, locked_by = NULL, locked_until = NULL
      WHERE (workspace_id, id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[])) AND locked_by = $4`,
  );
  protected static readonly DEFER_IN_WORKSPACE = statement(
    'delivery_defer_in_workspace',
    `UPDATE webhook_deliveries SET next_attempt_at = $3, locked_by = NULL, locked_until = NULL
      WHERE workspace_id = $1 AND id = ANY ($2::uuid[]) AND locked_by = $4`,
  );
  // Two statements, not one with CASE: Citus takes no stable function (now() + …) in a CASE.
  private static readonly RELEASE_SPENT = statement(
    'delivery_release_spent',
    `UPDATE webhook_deliveries
        SET attempt_count = attempt_count + 1, locked_by = NULL, locked_until = NULL,
            status = 'failed', reason = 'retries_exhausted', next_attempt_at = NULL
      WHERE workspace_id = $1 AND id = $2 AND locked_by = $3`,
  );
  private static readonly RELEASE_RETRY = statement(
    'delivery_release_retry',
    `UPDATE webhook_deliveries
        SET attempt_count = attempt_count + 1, locked_by = NULL, locked_until = NULL,
            status = 'pending', reason = NULL, next_attempt_at = now() + $4 * interval '1 millisecond'
      WHERE workspace_id = $1 AND id = $2 AND locked_by = $3`,
  );
  private static readonly LOCK_FOR_RETRY = statement(
    'delivery_lock_for_retry',
    `SELECT e.enabled FROM webhook_deliveries d
       LEFT JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id AND e.id = d.endpoint_id
      WHERE d.workspace_id = $1 AND d.id = $2 FOR UPDATE OF d`,
  );
  private static readonly RETRY = statement(
    'delivery_retry',
    `UPDATE webhook_deliveries SET status = 'pending', reason = NULL, next_attempt_at = now()
      WHERE workspace_id = $1 AND id = $2 AND (status <> 'pending' OR locked_by IS NULL)`,
  );
  private static readonly RECOVER = statement(
    'delivery_recover',
    `UPDATE webhook_deliveries SET status = 'pending', reason = NULL, next_attempt_at = now()
      WHERE workspace_id = $1 AND endpoint_id = $2 AND status = 'failed' AND event_type <> 'ping' AND created_at >= $3`,
  );
  /**
   * The ready-queue (outbox_queues, the claim's; see ClaimsStore): whatever makes a delivery
   * pending or due sooner brings its queue forward in the same transaction, so that a claim
   * finds it. These queues, due now ($1 workspaces, $2 endpoints, null for the workspace's mail;
   * each pair once), in key order so that transactions lock them in one order.
   */
  private static readonly QUEUES_DUE_NOW = statement(
    'delivery_queues_due_now',
    `INSERT INTO outbox_queues (workspace_id, queue, endpoint_id, due_at)
     SELECT w, coalesce(e, '${MAIL_QUEUE}'::uuid), e, now() FROM unnest($1::uuid[], $2::uuid[]) AS u(w, e) ORDER BY 1, 2
     ${BRING_FORWARD}`,
  );
  /** The queues of these deliveries of one workspace, due when the first of them still pending is. */
  protected static readonly QUEUES_OF = statement(
    'delivery_queues_of',
    `INSERT INTO outbox_queues (workspace_id, queue, endpoint_id, due_at)
     SELECT d.workspace_id, coalesce(d.endpoint_id, '${MAIL_QUEUE}'::uuid), d.endpoint_id, min(d.next_attempt_at)
       FROM webhook_deliveries d WHERE d.workspace_id = $1 AND d.id = ANY ($2::uuid[]) AND d.status = 'pending'
      GROUP BY 1, 2, 3
     ${BRING_FORWARD}`,
  );
  /** As QUEUES_OF, for deliveries of any workspaces ($1 and $2 pairs). */
  private static readonly QUEUES_OF_MANY = statement(
    'delivery_queues_of_many',
    `INSERT INTO outbox_queues (workspace_id, queue, endpoint_id, due_at)
     SELECT d.workspace_id, coalesce(d.endpoint_id, '${MAIL_QUEUE}'::uuid), d.endpoint_id, min(d.next_attempt_at)
       FROM webhook_deliveries d
      WHERE (d.workspace_id, d.id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[])) AND d.status = 'pending'
      GROUP BY 1, 2, 3 ORDER BY 1, 2
     ${BRING_FORWARD}`,
  );
  private static readonly INSERT_TEST = statement(
    'delivery_insert_test',
    `INSERT INTO webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_type, event_created_at, body,
                                     status, attempt_count, created_at, delivered_at)
     VALUES ($1, $2, $3, $2, 'ping', $4, $5, $6, 1, $4, $7)`,
  );

  constructor(protected readonly db: Database) {}

  /**
   * Queues an email, due now, and wakes the processors at commit (naming the workspace: on
   * Citus they look there alone, outbox/look.ts). The NOTIFY is a statement apart: on Citus the
   * insert runs on the workspace's worker, where nobody LISTENs.
   */
  queueEmail(tx: Tx, email: QueuedEmail): void {
    tx.send(DeliveriesStore.QUEUE_EMAIL, [email.workspaceId, email.id, email.recipient, email.eventId, email.eventType, email.body]);
    tx.send(DeliveriesStore.QUEUES_DUE_NOW, [[email.workspaceId], [null]]);
    this.wake(tx, email.workspaceId);
  }

  /** Wakes the processors at commit, to look in the workspace. */
  wake(tx: Tx, workspaceId: string): void {
    tx.send(DeliveriesStore.NOTIFY, [OUTBOX_CHANNEL, workspaceId]);
  }

  /** Fan-out's deliveries, due now, and their queues; one made already (the same id) is left as it is. */
  insertMany(tx: Tx, deliveries: NewDelivery[]): void {
    if (deliveries.length === 0) return;
    const queues = new Map<string, [string, string | null]>();
    for (const d of deliveries) queues.set(`${d.workspace_id} ${d.endpoint_id ?? ''}`, [d.workspace_id, d.endpoint_id]);
    tx.send(DeliveriesStore.QUEUES_DUE_NOW, [[...queues.values()].map(([w]) => w), [...queues.values()].map(([, e]) => e)]);
    tx.send(DeliveriesStore.INSERT_MANY, [
      deliveries.map((d) => d.workspace_id),
      deliveries.map((d) => d.id),
      deliveries.map((d) => d.endpoint_id),
      deliveries.map((d) => d.recipient),
      deliveries.map((d) => d.event_id),
      deliveries.map((d) => d.event_type),
      deliveries.map((d) => d.event_created_at),
      deliveries.map((d) => d.body),
    ]);
  }

  /** Voters of the post with an email address, except `actorId` (who made the change) and whoever unsubscribed. */
  /**
   * A page of the addresses a status change emails, in address order after `after` ('' for the
   * first page), at most `limit` of them: every batch reads on from where the last one stopped.
   */
  async votersToEmail(
    tx: Tx,
    workspaceId: string,
    postId: number | string,
    boardId: string,
    actorId: string | null,
    after: string,
    limit: number,
  ): Promise<string[]> {
    const rows = await tx.rows<{ email: string }>(DeliveriesStore.VOTERS_TO_EMAIL, [workspaceId, postId, boardId, actorId, after, limit]);
    return rows.map((row) => row.email);
  }

  /**
   * Locks a delivery for its attempt to be written (deleting its endpoint, and with it the row,
   * then waits); answers who holds its lease (undefined: it is gone).
   */
  async lockForAttempt(tx: Tx, workspaceId: string, id: string): Promise<{ locked_by: string | null } | undefined> {
    const [row] = await tx.rows<{ locked_by: string | null }>(DeliveriesStore.LOCK, [workspaceId, id]);
    return row;
  }

  insertAttempt(tx: Tx, attempt: AttemptRow): void {
    const { outcome } = attempt;
    tx.send(DeliveriesStore.INSERT_ATTEMPT, [
      attempt.workspaceId,
      attempt.deliveryId,
      attempt.at,
      outcome.durationMs,
      outcome.statusCode,
      outcome.error,
      outcome.responseBody,
    ]);
  }

  markDelivered(tx: Tx, workspaceId: string, id: string, attempts: number): void {
    tx.send(DeliveriesStore.DELIVERED, [workspaceId, id, attempts]);
  }

  /** After a failed attempt: retried at `next`, or (null) failed with its retries spent. */
  markFailedAttempt(tx: Tx, workspaceId: string, id: string, attempts: number, next: Date | null): void {
    tx.send(
      DeliveriesStore.ATTEMPTED,
      next === null ? [workspaceId, id, attempts, 'failed', 'retries_exhausted', null] : [workspaceId, id, attempts, 'pending', null, next],
    );
    if (next !== null) tx.send(DeliveriesStore.QUEUES_OF, [workspaceId, [id]]);
  }

  /** Cancels a delivery whose endpoint is off, unless it ended already. */
  cancelIfPending(tx: Tx, workspaceId: string, id: string): void {
    tx.send(DeliveriesStore.CANCEL_IF_PENDING, [workspaceId, id]);
  }

  /** Cancels what an endpoint turned off still had pending, but for deliveries under way. */
  cancelPendingOf(tx: Tx, workspaceId: string, endpointId: string): void {
    tx.send(DeliveriesStore.CANCEL_PENDING_OF, [workspaceId, endpointId]);
  }

  /** Writes successful attempts together (see RECORD_SUCCESSES); only `owner`'s deliveries move on. */
  async recordSuccesses(items: Success[], owner: string): Promise<void> {
    await this.db.count(DeliveriesStore.RECORD_SUCCESSES, [
      items.map((i) => i.delivery.workspace_id),
      items.map((i) => i.delivery.id),
      items.map((i) => i.at),
      items.map((i) => i.outcome.durationMs),
      items.map((i) => i.outcome.statusCode),
      items.map((i) => i.outcome.error),
      items.map((i) => i.outcome.responseBody),
      items.map((i) => i.delivery.attempt_count + 1),
      items.map((i) => i.endpointId),
      owner,
    ]);
  }

  /** Ends a claimed delivery without an attempt. */
  async finish(delivery: ClaimedDelivery, status: 'failed' | 'cancelled', reason: string, owner: string): Promise<void> {
    await this.db.count(DeliveriesStore.FINISH, [delivery.workspace_id, delivery.id, status, reason, owner]);
  }

  /** Gives claimed deliveries back, untried and uncounted, to be claimed again from `until` on. */
  async defer(deliveries: ClaimedDelivery[], until: Date, owner: string): Promise<void> {
    const keys = [deliveries.map((d) => d.workspace_id), deliveries.map((d) => d.id)];
    await this.db.transaction(async (tx) => {
      tx.send(DeliveriesStore.DEFER, [...keys, until, owner]);
      tx.send(DeliveriesStore.QUEUES_OF_MANY, keys);
    });
  }

  /** Counts an attempt whose outcome could not be written: retried in `delayMs`, or (undefined) failed. */
  async release(delivery: ClaimedDelivery, delayMs: number | undefined, owner: string): Promise<void> {
    const key = [delivery.workspace_id, delivery.id, owner];
    if (delayMs === undefined) {
      await this.db.count(DeliveriesStore.RELEASE_SPENT, key);
      return;
    }
    await this.db.transaction(async (tx) => {
      tx.send(DeliveriesStore.RELEASE_RETRY, [...key, delayMs]);
      tx.send(DeliveriesStore.QUEUES_OF, [delivery.workspace_id, [delivery.id]]);
    });
  }

  /**
   * Locks a delivery to send it again; answers whether its endpoint is on (null for an email),
   * or undefined when there is no such delivery.
   */
  async lockForRetry(tx: Tx, workspaceId: string, id: string): Promise<{ enabled: boolean | null } | undefined> {
    const [row] = await tx.rows<{ enabled: boolean | null }>(DeliveriesStore.LOCK_FOR_RETRY, [workspaceId, id]);
    return row;
  }

  /** Due again now, whatever became of it (but for a send under way). */
  retry(tx: Tx, workspaceId: string, id: string): void {
    tx.send(DeliveriesStore.RETRY, [workspaceId, id]);
    tx.send(DeliveriesStore.QUEUES_OF, [workspaceId, [id]]);
  }

  /** Due again now: an endpoint's deliveries that ended failed since `since`, tests excepted. Answers how many. */
  async recover(tx: Tx, workspaceId: string, endpointId: string, since: Date): Promise<number> {
    const recovered = await tx.count(DeliveriesStore.RECOVER, [workspaceId, endpointId, since]);
    if (recovered > 0) tx.send(DeliveriesStore.QUEUES_DUE_NOW, [[workspaceId], [endpointId]]);
    return recovered;
  }

  /** A test's delivery (a `ping`, made and tried at once) and its one attempt. */
  recordTest(
    tx: Tx,
    test: { workspaceId: string; id: string; endpointId: string; createdAt: Date; body: string; ok: boolean },
    attempt: AttemptRow,
  ): void {
    const { ok } = test;
    tx.send(DeliveriesStore.INSERT_TEST, [
      test.workspaceId,
      test.id,
      test.endpointId,
      test.createdAt,
      test.body,
      ok ? 'delivered' : 'failed',
      ok ? new Date() : null,
    ]);
    this.insertAttempt(tx, attempt);
  }
}

/**
 * On Citus a statement should stay on one workspace's shard: what spans workspaces runs once per
 * workspace, and a batch of successes is a transaction per workspace of single-shard statements.
 */
@Injectable()
export class CitusDeliveriesStore extends DeliveriesStore {
  private static readonly LOCK_MANY = statement(
    'delivery_lock_many',
    `SELECT id, locked_by FROM webhook_deliveries WHERE workspace_id = $1 AND id = ANY ($2::uuid[]) ORDER BY id FOR UPDATE`,
  );
  private static readonly INSERT_ATTEMPTS = statement(
    'delivery_attempts_insert',
    `INSERT INTO delivery_attempts (workspace_id, delivery_id, at, duration_ms, status_code, error, response_body)
     SELECT $1, u.id, u.at, u.duration_ms, u.status_code, u.error, u.response_body
       FROM unnest($2::uuid[], $3::timestamptz[], $4::integer[], $5::integer[], $6::text[], $7::text[])
            AS u(id, at, duration_ms, status_code, error, response_body)`,
  );
  private static readonly DELIVERED_MANY = statement(
    'delivery_delivered_many',
    `UPDATE webhook_deliveries SET status = 'delivered', reason = NULL, delivered_at = now(), attempt_count = $3,
            next_attempt_at = NULL, locked_by = NULL, locked_until = NULL
      WHERE workspace_id = $1 AND id = ANY ($2::uuid[]) AND locked_by = $4`,
  );
  private static readonly RESET_FAILURES = statement(
    'delivery_endpoints_reset_failures',
    `UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE workspace_id = $1 AND id = ANY ($2::uuid[]) AND consecutive_failures <> 0`,
  );

  override async recordSuccesses(items: Success[], owner: string): Promise<void> {
    const byWorkspace = new Map<string, Success[]>();
    for (const item of items) {
      const id = item.delivery.workspace_id;
      byWorkspace.set(id, [...(byWorkspace.get(id) ?? []), item]);
    }
    for (const [workspaceId, of] of byWorkspace) await this.recordWorkspaceSuccesses(workspaceId, of, owner);
  }

  /**
   * One workspace's successes, in two round trips: the deliveries locked; then the attempts, the
   * deliveries and the endpoints written, with the commit. (As one statement, Citus would plan
   * its CTEs apart and ship their rows between nodes.)
   */
  private async recordWorkspaceSuccesses(workspaceId: string, items: Success[], owner: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const locked = await tx.rows<{ id: string; locked_by: string | null }>(CitusDeliveriesStore.LOCK_MANY, [
        workspaceId,
        items.map((i) => i.delivery.id),
      ]);
      const holder = new Map(locked.map((row) => [row.id, row.locked_by]));
      const present = items.filter((i) => holder.has(i.delivery.id));
      if (present.length === 0) return;
      tx.send(CitusDeliveriesStore.INSERT_ATTEMPTS, [
        workspaceId,
        present.map((i) => i.delivery.id),
        present.map((i) => i.at),
        present.map((i) => i.outcome.durationMs),
        present.map((i) => i.outcome.statusCode),
        present.map((i) => i.outcome.error),
        present.map((i) => i.outcome.responseBody),
      ]);
      const mine = present.filter((i) => holder.get(i.delivery.id) === owner);
      const byAttempts = new Map<number, string[]>();
      for (const i of mine) {
        const n = i.delivery.attempt_count + 1;
        byAttempts.set(n, [...(byAttempts.get(n) ?? []), i.delivery.id]);
      }
      for (const [attempts, ids] of byAttempts) tx.send(CitusDeliveriesStore.DELIVERED_MANY, [workspaceId, ids, attempts, owner]);
      const endpoints = [...new Set(mine.flatMap((i) => (i.endpointId ? [i.endpointId] : [])))];
      if (endpoints.length > 0) tx.send(CitusDeliveriesStore.RESET_FAILURES, [workspaceId, endpoints]);
    });
  }

  override async defer(deliveries: ClaimedDelivery[], until: Date, owner: string): Promise<void> {
    for (const workspaceId of new Set(deliveries.map((d) => d.workspace_id))) {
      const ids = deliveries.filter((d) => d.workspace_id === workspaceId).map((d) => d.id);
      await this.db.transaction(async (tx) => {
        tx.send(DeliveriesStore.DEFER_IN_WORKSPACE, [workspaceId, ids, until, owner]);
        tx.send(DeliveriesStore.QUEUES_OF, [workspaceId, ids]);
      });
    }
  }
}
