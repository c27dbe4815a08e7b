import { Inject, Injectable } from '@nestjs/common';
import { normalEmail } from '../common/email-address';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Database, statement } from '../database/sql';
import { SIGN_IN_EMAIL } from '../notifications/sign-in-email';
import { ClaimedDelivery, CHAT_PACE_MS } from './channel';
import { readAtCommit } from './commit';
import type { SealedTarget } from './endpoint-targets';
import { EndpointsStore } from './endpoints.store';
import { Lease } from './lease';
import type { Look } from './look';
import { CLAIM_LOCK, monthlyReservation, PLAN_QUOTAS, reserveMonthIn, THIS_MONTH, WORKSPACE_CLAIM_LOCK } from './quota.store';

/** Failures in a row after which an endpoint's circuit opens: one send at a time until one succeeds. */
export const BREAKER_THRESHOLD = 5;
/**
 * Voter emails of one workspace in flight at once, across processes: four times a process's SMTP
 * connections (SMTP_CONNECTIONS), as many as OUTBOX_WORKSPACE_CONCURRENCY's default, so that one
 * workspace's mailing keeps a process's pool busy while its next emails are claimed, and they
 * are claimed in batches of half of it (OutboxProcessor.emailEnded). The mail server's share is
 * kept by the Mailer: workspaces that wait take its connections in turns.
 */
export const EMAIL_CONCURRENCY = 32;
/** A voter email's queue: the workspace's mail, where an endpoint delivery's queue is its endpoint. */
const MAIL_QUEUE = '00000000-0000-0000-0000-000000000000';
const QUEUE = `coalesce(d.endpoint_id, '${MAIL_QUEUE}'::uuid)`;

/**
 * A leased delivery's event data, read only for a delivery whose body is empty: a voter's email,
 * which the email channel renders at send from the event as recorded (outbox_events rows stay
 * while their deliveries do). One primary-key read per such email, in the claim's statement;
 * `workspace` is the event's workspace (on Citus the claimed one's parameter, so that the read
 * stays on its shard).
 */
const eventData = (workspace: string) =>
  `CASE WHEN d.body = '' THEN (SELECT o.data::text FROM outbox_events o WHERE o.workspace_id = ${workspace} AND o.id = d.event_id) END AS event_data`;

/** A leased delivery with its endpoint's row (all null for a voter email, or an endpoint deleted since). */
export type ClaimedRow = ClaimedDelivery & { target_id: string | null } & Omit<SealedTarget, 'id'> & {
    /** The month's attempts the claim reserved for the workspace, in `quota_month` (null: none asked for). */
    granted: number;
    quota_month: string | null;
  };

/**
 * Which due deliveries may be sent now, across every processor (all claims take one advisory
 * lock in turn, so what is in flight is counted exactly):
 * - the queues (an endpoint, or a workspace's mail) with pending work are read from the
 *   ready-queue, outbox_queues, in the order of the time each may next give a delivery
 *   (`due_at`, never later than that: see `front`), and only as many of each workspace's as the
 *   claim can use: those with a delivery due that might be taken, those held by their caps (no
 *   more than the workspace has in flight) and a margin (FRONT_MARGIN) for rows not yet brought
 *   up to date. So the claim's cost does not grow with the queues that wait, and no queue's
 *   backlog hides another's;
 * - a queue gets what its cap leaves: OUTBOX_ENDPOINT_CONCURRENCY for a healthy endpoint, one at
 *   a time once BREAKER_THRESHOLD failures in a row opened its circuit (its deliveries wait,
 *   none is dropped), one per second for a Slack or Discord channel, EMAIL_CONCURRENCY for mail;
 * - in flight are the deliveries under lease, but for those the claiming processor says arrived
 *   (own servers and email) and is still recording: their send is over. Those are never taken
 *   again, even once their lease ran out (a write slowed by a busy server): they arrived, and
 *   their processor writes so; taken again, they would be sent twice;
 * - a workspace gets at most OUTBOX_WORKSPACE_CONCURRENCY in flight;
 * - the free slots go round-robin: each workspace's first delivery, then each one's second, …,
 *   and among equals to the workspace with the fewest in flight; within a workspace every
 *   queue's oldest delivery before any queue's second (a queue's second is taken only when the
 *   workspace's queues were all read);
 * - in a workspace's mail, sign-in emails (someone is waiting for the code) go before the rest,
 *   oldest first (webhook_deliveries_sign_in_idx), then the rest oldest first: a code is not
 *   queued behind a mailing to every voter of a post, which it would outlast;
 * Its parameters: $1 the free slots, $2 the deliveries that arrived and are being recorded, $3
 * an endpoint's cap, $4 BREAKER_THRESHOLD, $5 a workspace's mail's cap, $6 a workspace's cap;
 * `scope` (on Citus, the parameter naming the one workspace claimed from) is named beside every
 * table so that the whole statement runs on that workspace's shard; each row then also answers
 * its rank in the claim.
 */
/**
 * How many sends a queue may have at once (before those in flight): a workspace's mail $5, a
 * chat channel one when its pace allows, an endpoint whose circuit is open one, else $3; `e` its
 * endpoint (null for the mail). One copy for both of the claim's paths (room and firsts).
 */
const queueCap = `CASE WHEN e.id IS NULL THEN $5::integer
                WHEN e.kind <> 'webhook' THEN CASE WHEN e.next_send_at <= now() THEN 1 ELSE 0 END
                WHEN e.consecutive_failures >= $4::integer THEN 1
                ELSE $3::integer END`;

/**
 * The due deliveries of queue `q` (an alias with workspace_id and queue), up to `limit`, not
 * under lease and not among the arrivals the claiming processor is still recording ($2): a
 * sign-in code of the mail first (`asked`), then the rest oldest first. One copy for both of the
 * claim's paths: each must leave out what its processor is still recording.
 */
const dueIn = (q: string, limit: string, only: string) => `
            (SELECT d.workspace_id, d.id, d.endpoint_id, d.next_attempt_at, d.created_at, true AS asked FROM webhook_deliveries d
              WHERE ${q}.queue = '${MAIL_QUEUE}'::uuid AND d.workspace_id = ${q}.workspace_id AND d.endpoint_id IS NULL
                AND d.event_type = '${SIGN_IN_EMAIL}' AND d.status = 'pending'
                AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until < now())
                AND d.id <> ALL ($2::uuid[])${only}
              ORDER BY d.next_attempt_at LIMIT ${limit})
            UNION ALL
            (SELECT d.workspace_id, d.id, d.endpoint_id, d.next_attempt_at, d.created_at, false FROM webhook_deliveries d
              WHERE d.workspace_id = ${q}.workspace_id AND ${QUEUE} = ${q}.queue AND d.status = 'pending' AND d.event_type <> '${SIGN_IN_EMAIL}'
                AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until < now())
                AND d.id <> ALL ($2::uuid[])${only}
              ORDER BY d.next_attempt_at, d.created_at LIMIT ${limit})`;

const claimable = (scope: string | null) => {
  const only = (alias: string) => (scope === null ? '' : ` AND ${alias}.workspace_id = ${scope}::uuid`);
  /** A queue kept: a workspace's mail, or an endpoint not deleted. */
  const kept = `q.queue = '${MAIL_QUEUE}'::uuid OR e.id IS NOT NULL`;
  return `
  WITH RECURSIVE ${workspacesWithQueues(scope)},
  flight AS (
    SELECT d.workspace_id, ${QUEUE} AS queue, count(*)::integer AS n FROM webhook_deliveries d
     WHERE d.status = 'pending' AND d.locked_by IS NOT NULL AND d.locked_until > now()
       AND d.id <> ALL ($2::uuid[])${only('d')}
     GROUP BY 1, 2
  ),
  workspace_flight AS (SELECT workspace_id, sum(n)::integer AS n FROM flight GROUP BY 1),
  queues AS (
    SELECT q.workspace_id, q.queue, q.endpoint_id, least($1::integer, $6::integer - coalesce(wf.n, 0)) AS wanted,
           count(*) OVER (PARTITION BY q.workspace_id) AS seen, ${FRONT_MARGIN} + least($1::integer, $6::integer) + coalesce(wf.n, 0) AS front
      FROM ready w
      LEFT JOIN workspace_flight wf ON wf.workspace_id = w.workspace_id,
      LATERAL (SELECT q.workspace_id, q.queue, q.endpoint_id FROM outbox_queues q
                WHERE q.workspace_id = w.workspace_id AND q.due_at <= now()${only('q')}
                ORDER BY q.due_at LIMIT ${FRONT_MARGIN} + least($1::integer, $6::integer) + coalesce(wf.n, 0)) q
     WHERE $6::integer - coalesce(wf.n, 0) > 0
  ),
  room AS (
    SELECT q.workspace_id, q.queue, e.kind, least(q.wanted, CASE WHEN q.seen < q.front THEN q.wanted ELSE 1 END,
           ${queueCap} - coalesce(f.n, 0)) AS free
      FROM queues q
      LEFT JOIN webhook_endpoints e ON e.workspace_id = q.workspace_id AND e.id = q.endpoint_id${only('e')}
      LEFT JOIN flight f ON f.workspace_id = q.workspace_id AND f.queue = q.queue
     WHERE ${scope === null ? `(${kept}) AND q.seen < q.front` : kept}
  ),
  candidates AS (
    SELECT c.*, r.kind,
           row_number() OVER (PARTITION BY c.workspace_id ORDER BY c.queue_rank, c.next_attempt_at, c.id) AS workspace_rank
      FROM room r, LATERAL (
        SELECT due.* FROM (
          SELECT due.*, row_number() OVER (ORDER BY due.asked DESC, due.next_attempt_at, due.created_at) AS queue_rank FROM (
            ${dueIn('r', 'r.free', only('d'))}) due
        ) due WHERE due.queue_rank <= r.free
      ) c
     WHERE r.free > 0
  )${scope === null ? `,${firsts}` : ''}
  SELECT c.workspace_id, c.id, c.endpoint_id, c.kind${scope === null ? '' : ', c.workspace_rank AS claim_rank'}
    FROM ${scope === null ? `(SELECT workspace_id, id, endpoint_id, kind, next_attempt_at, workspace_rank FROM candidates
          UNION ALL SELECT workspace_id, id, endpoint_id, kind, next_attempt_at, workspace_rank FROM firsts)` : 'candidates'} c LEFT JOIN workspace_flight w ON w.workspace_id = c.workspace_id
   WHERE c.workspace_rank <= $6::integer - coalesce(w.n, 0)
   ORDER BY c.workspace_rank, coalesce(w.n, 0), c.next_attempt_at
   LIMIT $1`;
};

/**
 * On one server, a workspace whose window of the ready-queue is full (it has at least as many
 * due queues as `claimable` reads: many endpoints) gives at most one delivery per queue, so
 * only as many of its queues are opened as it may take (`wanted`): its window is walked in
 * `due_at` order, each queue's endpoint and caps read and its first due delivery looked up (a
 * sign-in code first in the mail), until `wanted` of them gave one. A claim over 10,000
 * endpoints then reads about as many queues as it takes, not every queue of every workspace's
 * window (room and candidates, which now take the workspaces whose window is not full).
 */
const firsts = `
  firsts AS (
    SELECT o.*, row_number() OVER (PARTITION BY o.workspace_id ORDER BY o.next_attempt_at, o.id) AS workspace_rank
      FROM (SELECT DISTINCT workspace_id, wanted, front FROM queues WHERE seen >= front AND wanted > 0) w,
      LATERAL (
        SELECT d.workspace_id, d.id, d.endpoint_id, d.next_attempt_at, e.kind FROM (
          SELECT q.workspace_id, q.queue, q.endpoint_id, q.due_at FROM outbox_queues q
           WHERE q.workspace_id = w.workspace_id AND q.due_at <= now()
           ORDER BY q.due_at LIMIT w.front) q
          LEFT JOIN webhook_endpoints e ON e.workspace_id = q.workspace_id AND e.id = q.endpoint_id,
          LATERAL (
            SELECT due.* FROM (
              ${dueIn('q', '1', '')}) due
            ORDER BY due.asked DESC, due.next_attempt_at, due.created_at LIMIT 1
          ) d
         WHERE (q.queue = '${MAIL_QUEUE}'::uuid OR e.id IS NOT NULL)
           AND ${queueCap} > coalesce((SELECT f.n FROM flight f WHERE f.workspace_id = q.workspace_id AND f.queue = q.queue), 0)
         ORDER BY q.due_at LIMIT w.wanted
      ) o
  )`;

/**
 * Queues beyond those a claim can use that it reads at the front of each workspace's
 * ready-queue: for rows whose `due_at` is earlier than their deliveries' (deliveries cancelled
 * since, an endpoint deleted), brought up to date by `front` in the same transaction.
 */
const FRONT_MARGIN = 16;

/**
 * After a claim and `front`, in its transaction: the queues of deliveries whose lease ended
 * without an outcome written (their processor died, or could not write it) are brought forward
 * to those deliveries' due time, for the next claim. Reads only what is under lease
 * (webhook_deliveries_leased_idx). After the leases, not before: a processor writing an outcome
 * holds its delivery and then brings its queue forward, so a claim that held a queue's row
 * while it waited for that delivery would deadlock with it (the claim locks queue rows only
 * once it has leased, and `front` skips rows that others hold).
 */
const expired = (scope: string | null) => `
  INSERT INTO outbox_queues (workspace_id, queue, endpoint_id, due_at)
  SELECT d.workspace_id, ${QUEUE}, d.endpoint_id, min(d.next_attempt_at) FROM webhook_deliveries d
   WHERE d.status = 'pending' AND d.locked_by IS NOT NULL AND d.locked_until <= now()${scope === null ? '' : ` AND d.workspace_id = ${scope}::uuid`}
   GROUP BY 1, 2, 3${scope === null ? ' ORDER BY 1, 2' : ''}
  ON CONFLICT (workspace_id, queue) DO UPDATE SET due_at = least(outbox_queues.due_at, excluded.due_at)`;

/**
 * `ready`: the workspaces with queues in outbox_queues (a skip scan of its key: one probe per
 * workspace), or on Citus the one claimed from.
 */
const workspacesWithQueues = (scope: string | null) =>
  scope === null
    ? `ready AS (
    (SELECT q.workspace_id FROM outbox_queues q ORDER BY q.workspace_id LIMIT 1)
    UNION ALL
    SELECT n.workspace_id FROM ready r, LATERAL (
      SELECT q.workspace_id FROM outbox_queues q WHERE q.workspace_id > r.workspace_id ORDER BY q.workspace_id LIMIT 1) n
  )`
    : `ready AS (SELECT ${scope}::uuid AS workspace_id)`;

/**
 * On Citus, brings the front of one workspace's ready-queue ($3) up to date, after its claim and
 * in its transaction (so it sees the claim's leases): the due queues a claim reads (as many as
 * `claimable` reads: $1 the slots, $2 a workspace's cap) get the time each may next give a
 * delivery: its first pending delivery not under lease, or for a Slack or Discord channel its
 * next turn if later. A queue with nothing pending but under lease is dropped: what is under
 * lease comes back when its processor writes a retry (DeliveriesStore) or when the lease ends
 * (`expired`). Writers only ever bring a queue forward, so `due_at` is never later than the
 * truth.
 *
 * A row a writer holds (it is bringing its queue forward) is skipped, and one changed since this
 * statement's snapshot (its xmin differs from the one read) is left as it is: what this
 * statement read of its deliveries may be older than that change.
 */
const workspaceFront = (scope: string) => {
  const only = (alias: string) => ` AND ${alias}.workspace_id = ${scope}::uuid`;
  return `
  WITH RECURSIVE ${workspacesWithQueues(scope)},
  leases AS (
    SELECT d.workspace_id, count(*)::integer AS n FROM webhook_deliveries d
     WHERE d.status = 'pending' AND d.locked_by IS NOT NULL AND d.locked_until > now()${only('d')}
     GROUP BY 1
  ),
  seen AS (
    SELECT q.workspace_id, q.queue, q.endpoint_id, q.version
      FROM ready w, LATERAL (
        SELECT q.workspace_id, q.queue, q.endpoint_id, q.xmin::text AS version FROM outbox_queues q
         WHERE q.workspace_id = w.workspace_id AND q.due_at <= now()${only('q')}
         ORDER BY q.due_at
         LIMIT ${FRONT_MARGIN} + least($1::integer, $2::integer)
               + coalesce((SELECT l.n FROM leases l WHERE l.workspace_id = w.workspace_id), 0)) q
  ),
  held AS (
    SELECT q.workspace_id, q.queue, q.xmin::text AS version FROM outbox_queues q
     WHERE (q.workspace_id, q.queue) IN (SELECT workspace_id, queue FROM seen)${only('q')}
     ORDER BY q.workspace_id, q.queue FOR UPDATE SKIP LOCKED
  ),
  next AS (
    SELECT s.workspace_id, s.queue,
           CASE WHEN e.kind <> 'webhook' THEN greatest(h.first, e.next_send_at) ELSE h.first END AS due_at
      FROM seen s
      JOIN held k ON k.workspace_id = s.workspace_id AND k.queue = s.queue AND k.version = s.version
      LEFT JOIN webhook_endpoints e ON e.workspace_id = s.workspace_id AND e.id = s.endpoint_id${only('e')}
      LEFT JOIN LATERAL (
        SELECT min(d.next_attempt_at) AS first FROM webhook_deliveries d
         WHERE d.workspace_id = s.workspace_id AND ${QUEUE} = s.queue AND d.status = 'pending'
           AND (d.locked_until IS NULL OR d.locked_until <= now())${only('d')}
      ) h ON true
     WHERE s.endpoint_id IS NULL OR e.id IS NOT NULL
  ),
  moved AS (
    UPDATE outbox_queues q SET due_at = n.due_at FROM next n
     WHERE q.workspace_id = n.workspace_id AND q.queue = n.queue AND n.due_at IS NOT NULL AND q.due_at <> n.due_at${only('q')}
  )
  DELETE FROM outbox_queues q
   WHERE (q.workspace_id, q.queue) IN (
           SELECT s.workspace_id, s.queue FROM seen s JOIN held k ON k.workspace_id = s.workspace_id AND k.queue = s.queue AND k.version = s.version
             LEFT JOIN next n ON n.workspace_id = s.workspace_id AND n.queue = s.queue
            WHERE n.due_at IS NULL)${only('q')}`;
};

/**
 * `front` on one server ($1 the lease's owner, $2 its length, as the claim set them): the first
 * FRONT_MARGIN due queues of each workspace (where rows not brought up to date would hide
 * others) and the queues this claim leased from (their deliveries leased in this transaction:
 * the lease's end is the claim's, to the millisecond), not every queue of the claim's window
 * (with many endpoints, `firsts` reads only as many as it takes). Each one's time is computed
 * without a lock, and only the rows whose time changed are locked (skipping those a writer
 * holds, and those changed since this statement's snapshot) and moved or dropped.
 */
const front = `
  WITH RECURSIVE ${workspacesWithQueues(null)},
  claimed AS (
    SELECT DISTINCT d.workspace_id, ${QUEUE} AS queue FROM webhook_deliveries d
     WHERE d.status = 'pending' AND d.locked_by IS NOT NULL AND d.locked_by = $1
       AND d.locked_until = (now() + $2 * interval '1 millisecond')::timestamptz(3)
  ),
  seen AS (
    SELECT q.workspace_id, q.queue, q.endpoint_id, q.due_at, q.version
      FROM ready w, LATERAL (
        SELECT q.workspace_id, q.queue, q.endpoint_id, q.due_at, q.xmin::text AS version FROM outbox_queues q
         WHERE q.workspace_id = w.workspace_id AND q.due_at <= now()
         ORDER BY q.due_at LIMIT ${FRONT_MARGIN}) q
    UNION
    SELECT q.workspace_id, q.queue, q.endpoint_id, q.due_at, q.xmin::text FROM claimed c
      JOIN outbox_queues q ON q.workspace_id = c.workspace_id AND q.queue = c.queue
  ),
  next AS (
    SELECT s.workspace_id, s.queue,
           CASE WHEN e.kind <> 'webhook' THEN greatest(h.first, e.next_send_at) ELSE h.first END AS due_at
      FROM seen s
      LEFT JOIN LATERAL (
        SELECT e.id, e.kind, e.next_send_at FROM webhook_endpoints e
         WHERE e.workspace_id = s.workspace_id AND e.id = s.endpoint_id LIMIT 1) e ON true
      LEFT JOIN LATERAL (
        SELECT min(d.next_attempt_at) AS first FROM webhook_deliveries d
         WHERE d.workspace_id = s.workspace_id AND ${QUEUE} = s.queue AND d.status = 'pending'
           AND (d.locked_until IS NULL OR d.locked_until <= now())
      ) h ON true
     WHERE s.endpoint_id IS NULL OR e.id IS NOT NULL
  ),
  changed AS MATERIALIZED (
    SELECT s.workspace_id, s.queue, s.version, n.due_at FROM seen s
      LEFT JOIN next n ON n.workspace_id = s.workspace_id AND n.queue = s.queue
     WHERE n.due_at IS DISTINCT FROM s.due_at
  ),
  held AS (
    SELECT c.workspace_id, c.queue, c.due_at FROM changed c, LATERAL (
      SELECT q.xmin::text AS version FROM outbox_queues q
       WHERE q.workspace_id = c.workspace_id AND q.queue = c.queue FOR UPDATE SKIP LOCKED) k
     WHERE k.version = c.version
  ),
  moved AS (
    UPDATE outbox_queues q SET due_at = k.due_at FROM held k
     WHERE q.workspace_id = k.workspace_id AND q.queue = k.queue AND k.due_at IS NOT NULL
  )
  DELETE FROM outbox_queues q USING held k
   WHERE q.workspace_id = k.workspace_id AND q.queue = k.queue AND k.due_at IS NULL`;

/**
 * The claims of the outbox's scheduler: which due deliveries this processor may send now,
 * leased to it, with their endpoints as stored and the month's attempts reserved for them;
 * and when to look again.
 */
@Injectable()
export class ClaimsStore {
  /**
   * The claim, after CLAIM_LOCK: in one statement the choice (`claimable`), the chat channels'
   * next turn, the leases and the month's attempts reserved for deliveries to endpoints that
   * are on and for emails but sign-in codes' (those the hour's emails then hold back, or that
   * go to someone who unsubscribed, are given back: Scheduler). Beyond
   * claimable's: $7 the lease's owner, $8 its length (ms), $9 a chat channel's pace (ms), $10
   * and $11 PLAN_QUOTAS.
   */
  private static readonly CLAIM = statement(
    'outbox_claim',
    `WITH chosen AS (${claimable(null)}),
     paced AS (
       UPDATE webhook_endpoints e SET next_send_at = now() + $9 * interval '1 millisecond'
         FROM chosen c WHERE c.kind IN ('slack', 'discord') AND e.workspace_id = c.workspace_id AND e.id = c.endpoint_id
     ),
     leased AS (
       UPDATE webhook_deliveries d SET locked_by = $7, locked_until = now() + $8 * interval '1 millisecond'
         FROM chosen c
         JOIN workspaces w ON w.id = c.workspace_id
         LEFT JOIN webhook_endpoints e ON e.workspace_id = c.workspace_id AND e.id = c.endpoint_id
        WHERE d.workspace_id = c.workspace_id AND d.id = c.id AND d.status = 'pending'
        RETURNING d.workspace_id, d.id, d.endpoint_id, d.recipient, d.event_type, d.event_created_at, d.body,
                  ${eventData('d.workspace_id')}, d.attempt_count, w.plan,
                  e.id AS target_id, e.kind, e.url_sealed, e.enabled, e.secret_sealed, e.rotated_secrets,
                  CASE WHEN d.endpoint_id IS NULL THEN d.event_type <> '${SIGN_IN_EMAIL}' ELSE coalesce(e.enabled, false) END AS counted
     ),
     ${monthlyReservation('leased', '$10', '$11')}
     SELECT l.*, coalesce(g.granted, 0) AS granted, g.month AS quota_month
       FROM leased l LEFT JOIN granted g ON g.workspace_id = l.workspace_id`,
  );
  /**
   * Plain index scans, not bitmap scans, in a claim's transaction: the counts of what is under
   * lease (`flight`, `front`'s `leases`, `expired`) read webhook_deliveries_leased_idx, where
   * every email once leased and since delivered leaves an entry until VACUUM. A bitmap scan never
   * marks those entries dead, so every claim read the heap for each of them (at 100,000 voters,
   * `expired` alone read 600 pages a claim, half of them from outside shared buffers); an index
   * scan marks them dead once, and the next claims skip them.
   */
  private static readonly INDEX_SCANS = statement('outbox_claim_index_scans', `SET LOCAL enable_bitmapscan = off`);
  /** `front` and `expired` on one server: every workspace's, after the claim, in its transaction. */
  private static readonly EXPIRED = statement('outbox_claim_expired', expired(null));
  private static readonly FRONT = statement('outbox_claim_front', front);
  private static readonly NEXT_DUE = statement(
    'outbox_next_due',
    `SELECT (extract(epoch FROM min(next_attempt_at) - now()) * 1000)::integer AS due_in_ms
       FROM webhook_deliveries d WHERE status = 'pending' AND locked_by IS NULL`,
  );
  protected static readonly NEXT_DUE_IN = statement(
    'outbox_next_due_in',
    `SELECT (extract(epoch FROM min(next_attempt_at) - now()) * 1000)::integer AS due_in_ms
       FROM webhook_deliveries d WHERE status = 'pending' AND locked_by IS NULL AND d.workspace_id = ANY ($1::uuid[])`,
  );
  private static readonly held = (scoped: boolean) => `
    SELECT (extract(epoch FROM min(e.next_send_at) - now()) * 1000)::integer AS due_in_ms
      FROM webhook_endpoints e
     WHERE e.kind <> 'webhook' AND e.next_send_at > now()${scoped ? ' AND e.workspace_id = ANY ($1::uuid[])' : ''}
       AND EXISTS (SELECT 1 FROM webhook_deliveries d
                    WHERE d.workspace_id = e.workspace_id AND d.endpoint_id = e.id AND d.status = 'pending'
                      AND d.locked_by IS NULL AND d.next_attempt_at <= now())`;
  private static readonly HELD = statement('outbox_held', ClaimsStore.held(false));
  protected static readonly HELD_IN = statement('outbox_held_in', ClaimsStore.held(true));
  private static readonly UNSUBSCRIBED = statement(
    'outbox_unsubscribed',
    `SELECT DISTINCT p.workspace_id || ' ' || p.email AS key
       FROM people p JOIN unnest($1::uuid[], $2::text[]) AS r(workspace_id, email)
         ON p.workspace_id = r.workspace_id AND p.email = r.email
      WHERE p.email_unsubscribed_at IS NOT NULL`,
  );

  /** The caps of `claimable`, its parameters $3 to $6. */
  protected readonly caps: number[];

  constructor(
    protected readonly db: Database,
    @Inject(APP_CONFIG) config: AppConfig,
    protected readonly lease: Lease,
  ) {
    this.caps = [config.outboxEndpointConcurrency, BREAKER_THRESHOLD, EMAIL_CONCURRENCY, config.outboxWorkspaceConcurrency];
  }

  /**
   * Picks, leases and reserves the month's attempts, in one round trip: the claim lock, then in
   * one statement the choice, the chat channels' next turn, the leases and the reservation,
   * answering each leased delivery with its endpoint as stored and its workspace's grant; then
   * the ready-queue's front brought up to date (`front`) and the queues of leases that ended
   * brought back (`expired`, for the next claim); then the commit. The choice's statement
   * begins once the lock is held, so it counts what every earlier claim leased; all of it
   * commits together. `delivered`: deliveries of this processor that arrived and whose outcome
   * is being written (not in flight any more).
   */
  async claim(slots: number, delivered: string[], _look: Look): Promise<ClaimedRow[]> {
    const rows = await readAtCommit(this.db, async (tx) => {
      tx.send(ClaimsStore.INDEX_SCANS);
      tx.send(CLAIM_LOCK);
      const claimed = {
        last: tx.rows<ClaimedRow>(ClaimsStore.CLAIM, [
          slots,
          delivered,
          ...this.caps,
          this.lease.owner,
          this.lease.ms,
          CHAT_PACE_MS,
          PLAN_QUOTAS.plans,
          PLAN_QUOTAS.attempts,
        ]),
      };
      tx.send(ClaimsStore.FRONT, [this.lease.owner, this.lease.ms]);
      tx.send(ClaimsStore.EXPIRED);
      return claimed;
    });
    return rows ?? [];
  }

  /**
   * Where a pass after `look` asks when work is next due: on one server everywhere, in one
   * statement (null: nowhere).
   */
  protected where(_look: Look): 'all' | string[] | null {
    return 'all';
  }

  /**
   * When the next delivery not under lease is due, in ms from now (null: none is waiting): for
   * the retry timer. Due already, yet not claimed (a cap holds it, or a Slack or Discord
   * channel's pace or Retry-After): when the first such channel opens (a cap opens when a send
   * ends, which wakes a processor). `everywhere`: every workspace was looked at.
   */
  async nextDue(look: Look): Promise<{ dueInMs: number | null; everywhere: boolean }> {
    const where = this.where(look);
    if (where === null) return { dueInMs: null, everywhere: false };
    const everywhere = where === 'all';
    const params = everywhere ? [] : [where];
    const [next] = await this.db.rows<{ due_in_ms: number | null }>(everywhere ? ClaimsStore.NEXT_DUE : ClaimsStore.NEXT_DUE_IN, params);
    if (next?.due_in_ms === null || next === undefined) return { dueInMs: null, everywhere };
    if (next.due_in_ms > 0) return { dueInMs: next.due_in_ms, everywhere };
    // Due, yet the pass that just ended claimed nothing: wake when the first held chat channel
    // opens, not every few milliseconds until then.
    const [held] = await this.db.rows<{ due_in_ms: number | null }>(everywhere ? ClaimsStore.HELD : ClaimsStore.HELD_IN, params);
    return { dueInMs: held?.due_in_ms ?? null, everywhere };
  }

  /** Recipients of these emails who asked for no more, as `<workspace id> <address in its normal form>` (recipientKey). */
  async unsubscribed(emails: ClaimedDelivery[]): Promise<Set<string>> {
    if (emails.length === 0) return new Set();
    const rows = await this.db.rows<{ key: string }>(ClaimsStore.UNSUBSCRIBED, [
      emails.map((d) => d.workspace_id),
      emails.map((d) => normalEmail(d.recipient!) ?? d.recipient!),
    ]);
    return new Set(rows.map((row) => row.key));
  }
}

/** A recipient as `unsubscribed` names it: the address in its normal form (a lookalike is someone else). */
export const recipientKey = (workspaceId: string, recipient: string) => `${workspaceId} ${normalEmail(recipient) ?? recipient}`;

type LeasedRow = Omit<ClaimedRow, 'granted' | 'quota_month'> & { claim_rank: number };

/** Whether a claim reserves a month's attempt for the delivery (as the claim's `counted`): to an endpoint that is on, or an email but a sign-in code. */
const countedInMonth = (d: LeasedRow) => (d.endpoint_id === null ? d.event_type !== SIGN_IN_EMAIL : d.enabled === true);

/**
 * On Citus, the claim one workspace at a time, each under that workspace's lock and in
 * single-shard statements (a statement over every workspace's queues would read every shard,
 * and Citus cannot lock rows of several shards in one).
 */
@Injectable()
export class CitusClaimsStore extends ClaimsStore {
  /**
   * One workspace's claim as one single-shard statement (claimable's parameters, scoped to $7;
   * $8 the lease's owner, $9 its length): the choice, as a subquery, and the leases, answering
   * each leased delivery with its rank in the claim, its workspace's plan and its endpoint as
   * stored. Citus sends it whole to the node that holds the workspace's shards (with the choice
   * as a CTE of data-modifying statements, as on one server, it would plan each CTE apart and
   * ship their rows between nodes).
   */
  private static readonly WORKSPACE_CLAIM = statement(
    'outbox_claim_workspace',
    `UPDATE webhook_deliveries d SET locked_by = $8, locked_until = now() + $9 * interval '1 millisecond'
       FROM (${claimable('$7')}) c
       JOIN workspaces w ON w.id = $7::uuid
       LEFT JOIN webhook_endpoints e ON e.workspace_id = $7::uuid AND e.id = c.endpoint_id
      WHERE d.workspace_id = $7::uuid AND d.id = c.id AND d.status = 'pending'
      RETURNING c.claim_rank, d.workspace_id, d.id, d.endpoint_id, d.recipient, d.event_type, d.event_created_at, d.body,
                ${eventData('$7::uuid')}, d.attempt_count, w.plan,
                e.id AS target_id, e.kind, e.url_sealed, e.enabled, e.secret_sealed, e.rotated_secrets`,
  );
  /** `front` ($3) and `expired` ($1) in one workspace, after its claim, in its transaction. */
  private static readonly WORKSPACE_EXPIRED = statement('outbox_claim_workspace_expired', expired('$1'));
  private static readonly WORKSPACE_FRONT = statement('outbox_claim_workspace_front', workspaceFront('$3'));
  private static readonly due = (scoped: boolean) => `
    SELECT workspace_id, count(*) FILTER (WHERE locked_by IS NOT NULL AND locked_until > now())::integer AS flight
      FROM webhook_deliveries
     WHERE status = 'pending' AND (next_attempt_at <= now() OR locked_until > now())${scoped ? ' AND workspace_id = ANY ($1::uuid[])' : ''}
     GROUP BY workspace_id
    HAVING bool_or(next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now()))`;
  private static readonly DUE = statement('outbox_due_workspaces', CitusClaimsStore.due(false));
  private static readonly DUE_IN = statement('outbox_due_workspaces_in', CitusClaimsStore.due(true));
  private static readonly UNSUBSCRIBED_IN = statement(
    'outbox_unsubscribed_in',
    `SELECT DISTINCT p.workspace_id || ' ' || p.email AS key FROM people p
      WHERE p.workspace_id = $1 AND p.email = ANY ($2::text[]) AND p.email_unsubscribed_at IS NOT NULL`,
  );

  /** Where the last look found due work (workspaces with a delivery due and not under lease), looked at again by every pass until a look finds none there. */
  private dueWork = new Set<string>();

  constructor(
    db: Database,
    @Inject(APP_CONFIG) config: AppConfig,
    lease: Lease,
    private readonly endpoints: EndpointsStore,
  ) {
    super(db, config, lease);
  }

  /**
   * The workspaces with due work are found first (one read of every shard, in parallel), fewest
   * in flight first and in a random order among equals; each gets its share of the slots still
   * free, as in `claimable`'s round-robin: with 10 slots and 4 workspaces, 3, 3, 2 and 2, and
   * what one cannot use (its caps) goes to those after it.
   */
  override async claim(slots: number, delivered: string[], look: Look): Promise<ClaimedRow[]> {
    const workspaces = await this.withDueWork(look);
    const claimed: ClaimedRow[] = [];
    let free = slots;
    for (let i = 0; i < workspaces.length && free > 0; i++) {
      const share = Math.ceil(free / (workspaces.length - i));
      const rows = await this.claimFrom(workspaces[i], share, delivered);
      claimed.push(...rows);
      free -= rows.length;
    }
    return claimed;
  }

  /**
   * One workspace's claim, in a transaction under its claim lock, in two round trips: the lock
   * and the month (on the coordinator) with the choice and the leases (on the workspace's node);
   * then the chat channels' next turn, the workspace's ready-queue brought up to date (`front`,
   * `expired`) and the month's reservation, with the commit. The lock is held for those two
   * round trips.
   */
  private async claimFrom(workspaceId: string, slots: number, delivered: string[]): Promise<ClaimedRow[]> {
    let leased: LeasedRow[] = [];
    let month = '';
    const granted = await readAtCommit(this.db, async (tx) => {
      tx.send(WORKSPACE_CLAIM_LOCK, [workspaceId]);
      const [months, rows] = await Promise.all([
        tx.rows<{ month: string }>(THIS_MONTH),
        tx.rows<LeasedRow>(CitusClaimsStore.WORKSPACE_CLAIM, [slots, delivered, ...this.caps, workspaceId, this.lease.owner, this.lease.ms]),
      ]);
      [{ month }] = months;
      leased = rows;
      const chat = [...new Set(leased.filter((d) => d.kind === 'slack' || d.kind === 'discord').map((d) => d.target_id!))];
      if (chat.length > 0) this.endpoints.paceFromNow(tx, workspaceId, chat, CHAT_PACE_MS);
      tx.send(CitusClaimsStore.WORKSPACE_FRONT, [slots, this.caps[3], workspaceId]);
      tx.send(CitusClaimsStore.WORKSPACE_EXPIRED, [workspaceId]);
      if (leased.length === 0) return null;
      const last = reserveMonthIn(tx, workspaceId, leased[0].plan, leased.filter(countedInMonth).length, month);
      return last ? { last } : null;
    });
    const grant = granted === null ? null : (granted[0]?.granted ?? 0);
    return leased
      .sort((a, b) => a.claim_rank - b.claim_rank)
      .map(({ claim_rank: _rank, ...d }): ClaimedRow => ({ ...d, granted: grant ?? 0, quota_month: grant === null ? null : month }));
  }

  /**
   * Where a pass looks: everywhere, or in the workspaces it was woken for and those where the
   * last look found due work (null: nowhere).
   */
  protected override where(look: Look): 'all' | string[] | null {
    if (look === 'all') return 'all';
    const workspaces = new Set([...this.dueWork, ...look]);
    return workspaces.size === 0 ? null : [...workspaces];
  }

  /**
   * Workspaces with a delivery due and not under lease, fewest in flight first (ties shuffled):
   * one read of every shard, or of those of the workspaces `look` and the last look name (a
   * single-shard statement when that is one workspace).
   */
  private async withDueWork(look: Look): Promise<string[]> {
    const where = this.where(look);
    if (where === null) return [];
    const rows = await this.db.rows<{ workspace_id: string; flight: number }>(
      where === 'all' ? CitusClaimsStore.DUE : CitusClaimsStore.DUE_IN,
      where === 'all' ? [] : [where],
    );
    this.dueWork = new Set(rows.map((row) => row.workspace_id));
    return rows
      .map((row) => ({ ...row, order: Math.random() }))
      .sort((a, b) => a.flight - b.flight || a.order - b.order)
      .map((row) => row.workspace_id);
  }

  /** One single-shard read per workspace. */
  override async unsubscribed(emails: ClaimedDelivery[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const workspaceId of new Set(emails.map((d) => d.workspace_id))) {
      const rows = await this.db.rows<{ key: string }>(CitusClaimsStore.UNSUBSCRIBED_IN, [
        workspaceId,
        emails.filter((d) => d.workspace_id === workspaceId).map((d) => normalEmail(d.recipient!) ?? d.recipient!),
      ]);
      rows.forEach((row) => found.add(row.key));
    }
    return found;
  }
}
