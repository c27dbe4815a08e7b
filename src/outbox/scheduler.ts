import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { normalEmail } from '../common/email-address';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { isDistributed } from '../database/distribution';
import { inPreparedTransaction, PreparedSql, runStatementsPrepared, sqlInt, sqlText, sqlUuids } from '../database/queries';
import { EndpointsService, SealedTarget, TARGET_COLUMNS } from '../webhooks/endpoints.service';
import { SIGN_IN_EMAIL, SIGN_IN_LIFETIME_MS } from '../notifications/sign-in-email';
import { ClaimedDelivery, EndpointTarget, Sendable } from './channel';
import { Lease } from './lease';
import { claimLock, monthlyReservation, monthReservation, Quota, THIS_MONTH } from './quota';
import { CHAT_PACE_MS, Recorder } from './recorder';
import { Look } from './look';

/** Failures in a row after which an endpoint's circuit opens: one send at a time until one succeeds. */
export const BREAKER_THRESHOLD = 5;
/** Voter emails of one workspace in flight at once (they share the operator's mail server). */
export const EMAIL_CONCURRENCY = 4;
/** A voter email's queue: the workspace's mail, where an endpoint delivery's queue is its endpoint. */
const MAIL_QUEUE = '00000000-0000-0000-0000-000000000000';
const QUEUE = `coalesce(d.endpoint_id, '${MAIL_QUEUE}'::uuid)`;

/**
 * Which due deliveries may be sent now, across every processor (all claims take one advisory
 * lock in turn, so what is in flight is counted exactly):
 * - every queue (an endpoint, or a workspace's mail) with pending work is visited by a skip
 *   scan of its index, so no queue's backlog hides another's;
 * - a queue gets what its cap leaves: OUTBOX_ENDPOINT_CONCURRENCY for a healthy endpoint, one at
 *   a time once BREAKER_THRESHOLD failures in a row opened its circuit (its deliveries wait,
 *   none is dropped), one per second for a Slack or Discord channel, EMAIL_CONCURRENCY for mail;
 * - in flight are the deliveries under lease, but for those the claiming processor says arrived
 *   (own servers and email) and is still recording: their send is over;
 * - a workspace gets at most OUTBOX_WORKSPACE_CONCURRENCY in flight;
 * - the free slots go round-robin: each workspace's first delivery, then each one's second, …,
 *   and among equals to the workspace with the fewest in flight.
 * Its parameters: $1 the free slots, $2 the deliveries that arrived and are being recorded;
 * `scoped` (on Citus): $3 the one workspace claimed from, named beside every table so that the
 * whole statement runs on that workspace's shard; each row also answers its rank in the claim.
 */
const claimable = (p: { endpointCap: number; breaker: number; emailCap: number; workspaceCap: number; scoped: boolean }) => {
  const only = (alias: string) => (p.scoped ? ` AND ${alias}.workspace_id = $3::uuid` : '');
  return `
  WITH RECURSIVE queues AS (
    (SELECT d.workspace_id, ${QUEUE} AS queue FROM webhook_deliveries d
      WHERE d.status = 'pending'${only('d')} ORDER BY d.workspace_id, ${QUEUE} LIMIT 1)
    UNION ALL
    SELECT n.workspace_id, n.queue FROM queues q, LATERAL (
      SELECT d.workspace_id, ${QUEUE} AS queue FROM webhook_deliveries d
       WHERE d.status = 'pending' AND (d.workspace_id, ${QUEUE}) > (q.workspace_id, q.queue)${only('d')}
       ORDER BY d.workspace_id, ${QUEUE} LIMIT 1) n
  ),
  flight AS (
    SELECT d.workspace_id, ${QUEUE} AS queue, count(*)::integer AS n FROM webhook_deliveries d
     WHERE d.status = 'pending' AND d.locked_by IS NOT NULL AND d.locked_until > now()
       AND d.id <> ALL ($2::uuid[])${only('d')}
     GROUP BY 1, 2
  ),
  workspace_flight AS (SELECT workspace_id, sum(n)::integer AS n FROM flight GROUP BY 1),
  room AS (
    SELECT q.workspace_id, q.queue, e.kind,
           CASE WHEN e.id IS NULL THEN ${sqlInt(p.emailCap)}
                WHEN e.kind <> 'webhook' THEN CASE WHEN e.next_send_at <= now() THEN 1 ELSE 0 END
                WHEN e.consecutive_failures >= ${sqlInt(p.breaker)} THEN 1
                ELSE ${sqlInt(p.endpointCap)} END - coalesce(f.n, 0) AS free
      FROM queues q
      LEFT JOIN webhook_endpoints e ON e.workspace_id = q.workspace_id AND e.id = q.queue${only('e')}
      LEFT JOIN flight f ON f.workspace_id = q.workspace_id AND f.queue = q.queue
     WHERE q.queue = '${MAIL_QUEUE}'::uuid OR e.id IS NOT NULL
  ),
  candidates AS (
    SELECT c.*, r.kind,
           row_number() OVER (PARTITION BY c.workspace_id ORDER BY c.queue_rank, c.next_attempt_at, c.id) AS workspace_rank
      FROM room r, LATERAL (
        SELECT due.*, row_number() OVER (ORDER BY due.next_attempt_at, due.created_at) AS queue_rank FROM (
          SELECT d.workspace_id, d.id, d.endpoint_id, d.next_attempt_at, d.created_at FROM webhook_deliveries d
           WHERE d.workspace_id = r.workspace_id AND ${QUEUE} = r.queue AND d.status = 'pending'
             AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until < now())${only('d')}
           ORDER BY d.next_attempt_at, d.created_at LIMIT r.free) due
      ) c
     WHERE r.free > 0
  )
  SELECT c.workspace_id, c.id, c.endpoint_id, c.kind${p.scoped ? ', c.workspace_rank AS claim_rank' : ''}
    FROM candidates c LEFT JOIN workspace_flight w ON w.workspace_id = c.workspace_id
   WHERE c.workspace_rank <= ${sqlInt(p.workspaceCap)} - coalesce(w.n, 0)
   ORDER BY c.workspace_rank, coalesce(w.n, 0), c.next_attempt_at
   LIMIT $1`;
};

const claimCaps = (config: AppConfig, scoped: boolean) => ({
  endpointCap: config.outboxEndpointConcurrency,
  breaker: BREAKER_THRESHOLD,
  emailCap: EMAIL_CONCURRENCY,
  workspaceCap: config.outboxWorkspaceConcurrency,
  scoped,
});

/**
 * The claim (see `Scheduler.lock`), with the deliveries it leased, their endpoints and the
 * month's attempts reserved for those to endpoints that are on (a voter email's attempt is
 * reserved once the hour's emails allow it): the parameters of `claimable`.
 */
const claimStatement = (config: AppConfig, lease: Lease) => {
  const chosen = claimable(claimCaps(config, false));
  return `
    WITH chosen AS (${chosen}),
    paced AS (
      UPDATE webhook_endpoints e SET next_send_at = now() + ${sqlInt(CHAT_PACE_MS)} * interval '1 millisecond'
        FROM chosen c WHERE c.kind IN ('slack', 'discord') AND e.workspace_id = c.workspace_id AND e.id = c.endpoint_id
    ),
    leased AS (
      UPDATE webhook_deliveries d SET locked_by = ${sqlText(lease.owner)},
             locked_until = now() + ${sqlInt(lease.ms)} * interval '1 millisecond'
        FROM chosen c
        JOIN workspaces w ON w.id = c.workspace_id
        LEFT JOIN webhook_endpoints e ON e.workspace_id = c.workspace_id AND e.id = c.endpoint_id
       WHERE d.workspace_id = c.workspace_id AND d.id = c.id AND d.status = 'pending'
       RETURNING d.workspace_id, d.id, d.endpoint_id, d.recipient, d.event_type, d.event_created_at, d.body,
                 d.attempt_count, w.plan,
                 e.id AS target_id, e.kind, e.url_sealed, e.enabled, e.secret_sealed, e.rotated_secrets,
                 coalesce(e.enabled, false) AS counted
    ),
    ${monthlyReservation('leased')}
    SELECT l.*, coalesce(g.granted, 0) AS granted, g.month AS quota_month
      FROM leased l LEFT JOIN granted g ON g.workspace_id = l.workspace_id`;
};

/**
 * On Citus, one workspace's claim as one single-shard statement (the parameters of `claimable`,
 * scoped): the choice, as a subquery, and the leases, answering each leased delivery with its
 * rank in the claim, its workspace's plan and its endpoint as stored. Citus sends it whole to
 * the node that holds the workspace's shards (with the choice as a CTE of data-modifying
 * statements, as on one server, it would plan each CTE apart and ship their rows between nodes).
 */
const workspaceClaimStatement = (config: AppConfig, lease: Lease) => `
  UPDATE webhook_deliveries d SET locked_by = ${sqlText(lease.owner)},
         locked_until = now() + ${sqlInt(lease.ms)} * interval '1 millisecond'
    FROM (${claimable(claimCaps(config, true))}) c
    JOIN workspaces w ON w.id = $3::uuid
    LEFT JOIN webhook_endpoints e ON e.workspace_id = $3::uuid AND e.id = c.endpoint_id
   WHERE d.workspace_id = $3::uuid AND d.id = c.id AND d.status = 'pending'
   RETURNING c.claim_rank, d.workspace_id, d.id, d.endpoint_id, d.recipient, d.event_type, d.event_created_at, d.body,
             d.attempt_count, w.plan,
             e.id AS target_id, e.kind, e.url_sealed, e.enabled, e.secret_sealed, e.rotated_secrets`;

/**
 * The fair scheduler: claims what this processor may send now (see CLAIMABLE), leases it, and
 * settles what must not be sent (endpoint turned off, secrets unreadable, recipient
 * unsubscribed, quota spent, hourly email cap reached) before any channel sees it. Quota is
 * asked here: the month's attempts within the claim's statement, the hour's emails after it.
 */
@Injectable()
export class Scheduler {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly lease: Lease,
    private readonly endpoints: EndpointsService,
    private readonly quota: Quota,
    private readonly recorder: Recorder,
  ) {
    this.claimStatement = { sql: claimStatement(config, lease), types: ['integer', 'uuid[]'] };
    this.workspaceClaim = { label: 'claim_workspace', sql: workspaceClaimStatement(config, lease), types: ['integer', 'uuid[]', 'uuid'] };
  }

  /** The same for every claim of this processor: prepared once per connection. */
  private readonly claimStatement: { sql: string; types: string[] };
  /** On Citus: the choice and the leases of one workspace's claim (its $3), prepared once per connection. */
  private readonly workspaceClaim: PreparedSql;

  /**
   * Claims up to `slots` deliveries and answers those to send now, with where they go, and how
   * many were leased (those settled here without a send included). `delivered`: deliveries of
   * this processor that arrived (to an own server, or a voter email) and whose outcome is being
   * written; they still hold their lease, but no longer a send: they do not count as in flight.
   */
  async claim(slots: number, delivered: string[] = [], look: Look = 'all'): Promise<{ send: Sendable[]; leased: number }> {
    const claimed = await this.lock(slots, delivered, look);
    if (claimed.length === 0) return { send: [], leased: 0 };
    const reserved = new Reservations(this.quota);
    for (const row of claimed) {
      if (row.quota_month !== null) reserved.byClaim.set(row.workspace_id, { workspaceId: row.workspace_id, month: row.quota_month, granted: row.granted, sent: 0 });
    }
    let send: Sendable[];
    try {
      send = await this.settle(claimed, reserved);
    } catch (error) {
      // Nothing of this claim goes out: all it reserved is given back (its deliveries are
      // claimed again when their leases end, and reserved again then).
      await reserved.giveBack(true);
      throw error;
    }
    await reserved.giveBack(false);
    return { send, leased: claimed.length };
  }

  /** Settles what must not be sent, and answers the rest, within the month's and the hour's quotas. */
  private async settle(claimed: ClaimedRow[], reserved: Reservations): Promise<Sendable[]> {
    const now = new Date();
    const targets = new Map<string, EndpointTarget>();
    for (const row of claimed) {
      if (row.target_id !== null && !targets.has(row.target_id)) {
        const { target_id, kind, url_sealed, enabled, secret_sealed, rotated_secrets } = row;
        targets.set(target_id, this.endpoints.openTarget({ id: target_id, kind, url_sealed, enabled, secret_sealed, rotated_secrets }, now));
      }
    }
    const unsubscribed = await this.unsubscribed(claimed.filter((d) => d.recipient !== null && d.event_type !== SIGN_IN_EMAIL));
    const wanted: Sendable[] = [];
    for (const row of claimed) {
      const delivery = claimedDelivery(row);
      if (delivery.event_type === SIGN_IN_EMAIL) {
        // Asked for by the person it goes to: no unsubscribe, and no use once its code expired.
        if (now.getTime() - delivery.event_created_at.getTime() >= SIGN_IN_LIFETIME_MS) {
          await this.recorder.finish(delivery, 'cancelled', 'expired');
        } else wanted.push({ delivery, kind: 'email', endpoint: null });
        continue;
      }
      if (delivery.recipient !== null) {
        if (unsubscribed.has(recipientKey(delivery.workspace_id, delivery.recipient))) {
          await this.recorder.finish(delivery, 'cancelled', 'unsubscribed');
        } else wanted.push({ delivery, kind: 'email', endpoint: null });
        continue;
      }
      const endpoint = targets.get(delivery.endpoint_id!);
      if (!endpoint) continue; // deleted since: its deliveries went with it
      if (!endpoint.enabled) await this.recorder.finish(delivery, 'cancelled', 'endpoint_disabled');
      else if (endpoint.unreadable) {
        // A failed attempt (retried, counted towards turning the endpoint off), not the whole batch's failure.
        await this.recorder.record({ delivery, kind: endpoint.kind, endpoint }, new Date(), {
          ok: false,
          statusCode: null,
          error: 'secret_unreadable',
          durationMs: 0,
          responseBody: null,
          retryAfterMs: null,
        });
      } else wanted.push({ delivery, kind: endpoint.kind, endpoint });
    }
    return this.withinQuota(wanted, reserved);
  }

  /**
   * Picks, leases and reserves the month's attempts, in one round trip: the claim lock, then in
   * one statement the choice, the chat channels' next turn, the leases and the reservation,
   * answering each leased delivery with its endpoint as stored and its workspace's grant. The
   * choice's statement begins once the lock is held, so it counts what every earlier claim
   * leased; all of it commits together.
   */
  private async lock(slots: number, delivered: string[], look: Look): Promise<ClaimedRow[]> {
    if (await isDistributed(this.db)) return this.lockByWorkspace(slots, delivered, look);
    return runStatementsPrepared<ClaimedRow>(this.db, 'claim', this.claimStatement, claimLock(null), [
      sqlInt(slots),
      sqlUuids(delivered),
    ]);
  }

  /**
   * On Citus: the same claim, one workspace at a time, each under that workspace's lock and in
   * single-shard statements (a statement over every workspace's queues would read every
   * shard, and Citus cannot lock rows of several shards in one). The workspaces with due work
   * are found first (one read of every shard, in parallel), fewest in flight first and in a
   * random order among equals; each gets its share of the slots still free, as in
   * `claimable`'s round-robin: with 10 slots and 4 workspaces, 3, 3, 2 and 2, and what one
   * cannot use (its caps) goes to those after it.
   */
  private async lockByWorkspace(slots: number, delivered: string[], look: Look): Promise<ClaimedRow[]> {
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
   * One workspace's claim on Citus, in a transaction under its claim lock, in two round trips:
   * the lock and the month (on the coordinator) with the choice and the leases
   * (`workspaceClaimStatement`, on the workspace's node); then the chat channels' next turn and
   * the month's reservation, with the commit. The lock is held for those two round trips.
   */
  private claimFrom(workspaceId: string, slots: number, delivered: string[]): Promise<ClaimedRow[]> {
    return inPreparedTransaction(this.db, async (tx) => {
      const [, [{ month }], leased] = (await tx.batch([
        claimLock(workspaceId),
        THIS_MONTH,
        { statement: this.workspaceClaim, args: [sqlInt(slots), sqlUuids(delivered), `${sqlText(workspaceId)}::uuid`] },
      ])) as [unknown, { month: string }[], (Omit<ClaimedRow, 'granted' | 'quota_month'> & { claim_rank: number })[]];
      if (leased.length === 0) return []; // rolled back: nothing was written
      const plan = leased[0].plan;
      const chat = [...new Set(leased.filter((d) => d.kind === 'slack' || d.kind === 'discord').map((d) => d.target_id!))];
      const pace =
        chat.length === 0
          ? []
          : [
              `UPDATE webhook_endpoints SET next_send_at = now() + ${sqlInt(CHAT_PACE_MS)} * interval '1 millisecond'
                WHERE workspace_id = ${sqlText(workspaceId)}::uuid AND id = ANY (${sqlUuids(chat)})`,
            ];
      const reserve = monthReservation(workspaceId, plan, leased.filter((d) => d.enabled === true).length, month);
      const results = await tx.batch([...pace, ...reserve], true);
      const granted = reserve.length === 0 ? null : ((results[results.length - 1] as { granted: number }[])[0]?.granted ?? 0);
      return leased
        .sort((a, b) => a.claim_rank - b.claim_rank)
        .map(({ claim_rank: _rank, ...d }): ClaimedRow => ({ ...d, granted: granted ?? 0, quota_month: granted === null ? null : month }));
    });
  }

  /**
   * On Citus: where the last look found due work (workspaces with a delivery due and not under
   * lease), looked at again by every pass until a look finds none there.
   */
  private dueWork = new Set<string>();

  /**
   * On Citus, where a pass looks: everywhere, or in the workspaces it was woken for and those
   * where the last look found due work (null: nowhere).
   */
  private where(look: Look): 'all' | string[] | null {
    if (look === 'all') return 'all';
    const workspaces = new Set([...this.dueWork, ...look]);
    return workspaces.size === 0 ? null : [...workspaces];
  }

  /**
   * Workspaces with a delivery due and not under lease, fewest in flight first (ties shuffled):
   * on Citus one read of every shard, or of those of the workspaces `look` and the last look
   * name (a single-shard statement when that is one workspace).
   */
  private async withDueWork(look: Look): Promise<string[]> {
    const where = this.where(look);
    if (where === null) return [];
    const rows: { workspace_id: string; flight: number }[] = await this.db.query(
      `SELECT workspace_id, count(*) FILTER (WHERE locked_by IS NOT NULL AND locked_until > now())::integer AS flight
         FROM webhook_deliveries
        WHERE status = 'pending' AND (next_attempt_at <= now() OR locked_until > now())${where === 'all' ? '' : ' AND workspace_id = ANY ($1::uuid[])'}
        GROUP BY workspace_id
       HAVING bool_or(next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now()))`,
      where === 'all' ? [] : [where],
    );
    this.dueWork = new Set(rows.map((row) => row.workspace_id));
    return rows
      .map((row) => ({ ...row, order: Math.random() }))
      .sort((a, b) => a.flight - b.flight || a.order - b.order)
      .map((row) => row.workspace_id);
  }

  /**
   * When the next delivery not under lease is due, in ms from now (null: none is waiting): for
   * the retry timer. Due already, yet not claimed (a cap holds it, or a Slack or Discord
   * channel's pace or Retry-After): when the first such channel opens (a cap opens when a send
   * ends, which wakes a processor). `everywhere`: every workspace was looked at; on Citus after
   * a pass that looked in some only, the answer is for theirs (see `where`).
   */
  async nextDue(look: Look): Promise<{ dueInMs: number | null; everywhere: boolean }> {
    const where = (await isDistributed(this.db)) ? this.where(look) : 'all';
    if (where === null) return { dueInMs: null, everywhere: false };
    const only = (alias: string) => (where === 'all' ? '' : ` AND ${alias}.workspace_id = ANY ($1::uuid[])`);
    const params = where === 'all' ? [] : [where];
    const [next]: { due_in_ms: number | null }[] = await this.db.query(
      `SELECT (extract(epoch FROM min(next_attempt_at) - now()) * 1000)::integer AS due_in_ms
         FROM webhook_deliveries d WHERE status = 'pending' AND locked_by IS NULL${only('d')}`,
      params,
    );
    const everywhere = where === 'all';
    if (next?.due_in_ms === null || next === undefined) return { dueInMs: null, everywhere };
    if (next.due_in_ms > 0) return { dueInMs: next.due_in_ms, everywhere };
    // Due, yet the pass that just ended claimed nothing: wake when the first held chat channel
    // opens, not every few milliseconds until then.
    const [held]: { due_in_ms: number | null }[] = await this.db.query(
      `SELECT (extract(epoch FROM min(e.next_send_at) - now()) * 1000)::integer AS due_in_ms
         FROM webhook_endpoints e
        WHERE e.kind <> 'webhook' AND e.next_send_at > now()${only('e')}
          AND EXISTS (SELECT 1 FROM webhook_deliveries d
                       WHERE d.workspace_id = e.workspace_id AND d.endpoint_id = e.id AND d.status = 'pending'
                         AND d.locked_by IS NULL AND d.next_attempt_at <= now())`,
      params,
    );
    return { dueInMs: held?.due_in_ms ?? null, everywhere };
  }

  /** Recipients of these emails who asked for no more, as `<workspace id> <address in its normal form>` (recipientKey). */
  private async unsubscribed(emails: ClaimedDelivery[]): Promise<Set<string>> {
    if (emails.length === 0) return new Set();
    if (await isDistributed(this.db)) {
      // One single-shard read per workspace.
      const found = new Set<string>();
      for (const workspaceId of new Set(emails.map((d) => d.workspace_id))) {
        const rows: { key: string }[] = await this.db.query(
          `SELECT DISTINCT p.workspace_id || ' ' || p.email AS key FROM people p
            WHERE p.workspace_id = $1 AND p.email = ANY ($2::text[]) AND p.email_unsubscribed_at IS NOT NULL`,
          [workspaceId, emails.filter((d) => d.workspace_id === workspaceId).map((d) => normalEmail(d.recipient!) ?? d.recipient!)],
        );
        rows.forEach((row) => found.add(row.key));
      }
      return found;
    }
    const rows: { key: string }[] = await this.db.query(
      `SELECT DISTINCT p.workspace_id || ' ' || p.email AS key
         FROM people p JOIN unnest($1::uuid[], $2::text[]) AS r(workspace_id, email)
           ON p.workspace_id = r.workspace_id AND p.email = r.email
        WHERE p.email_unsubscribed_at IS NOT NULL`,
      [emails.map((d) => d.workspace_id), emails.map((d) => normalEmail(d.recipient!) ?? d.recipient!)],
    );
    return new Set(rows.map((row) => row.key));
  }

  /**
   * Every attempt counts against the workspace's month: past its quota a delivery ends `failed`
   * (`quota_exceeded`). The claim reserved the attempts of deliveries to endpoints that are on;
   * a voter email's is reserved here, once the hour allows it: past EMAIL_HOURLY_LIMIT emails
   * wait for the next hour, untried and uncounted.
   */
  private async withinQuota(wanted: Sendable[], reserved: Reservations): Promise<Sendable[]> {
    const byWorkspace = new Map<string, Sendable[]>();
    for (const s of wanted) byWorkspace.set(s.delivery.workspace_id, [...(byWorkspace.get(s.delivery.workspace_id) ?? []), s]);
    const go: Sendable[] = [];
    const within = async (sendable: Sendable[], reservation: Reservation | undefined) => {
      const granted = reservation?.granted ?? 0;
      for (const s of sendable.slice(granted)) await this.recorder.finish(s.delivery, 'failed', 'quota_exceeded');
      go.push(...sendable.slice(0, granted));
      if (reservation) reservation.sent = Math.min(granted, sendable.length);
    };
    for (const [workspaceId, all] of byWorkspace) {
      await within(
        all.filter((s) => s.kind !== 'email'),
        reserved.byClaim.get(workspaceId),
      );
      // Sign-in emails are not notifications: a person asked for each (their limits are where it
      // is asked for), on every plan, and none counts against the workspace's quotas.
      go.push(...all.filter((s) => s.delivery.event_type === SIGN_IN_EMAIL));
      const emails = all.filter((s) => s.kind === 'email' && s.delivery.event_type !== SIGN_IN_EMAIL);
      if (emails.length === 0) continue;
      const allowed = await this.quota.reserveEmails(workspaceId, emails.length);
      await this.recorder.defer(
        emails.slice(allowed).map((s) => s.delivery),
        nextHour(),
      );
      const thisHour = emails.slice(0, allowed);
      if (thisHour.length > 0) await within(thisHour, await reserved.forEmails(workspaceId, thisHour[0].delivery.plan, thisHour.length));
    }
    return go;
  }
}

/** Attempts of a workspace's month that one claim reserved, and how many of them it sends. */
interface Reservation {
  workspaceId: string;
  month: string;
  granted: number;
  sent: number;
}

/**
 * What one claim reserved of the months' attempts: in the claim's statement (deliveries to
 * endpoints that are on), then for the voter emails the hour allows. What it does not send (a
 * secret that no longer opens; everything, when settling the claim failed) is given back.
 */
class Reservations {
  readonly byClaim = new Map<string, Reservation>();
  private readonly emails: Reservation[] = [];
  private readonly logger = new Logger('Outbox');

  constructor(private readonly quota: Quota) {}

  async forEmails(workspaceId: string, plan: string, count: number): Promise<Reservation | undefined> {
    const { granted, month } = await this.quota.reserveMonth(workspaceId, plan, count);
    if (month === null) return undefined;
    const reservation = { workspaceId, month, granted, sent: 0 };
    this.emails.push(reservation);
    return reservation;
  }

  /** Gives back what was reserved and not sent; with `all`, everything (nothing was sent). */
  async giveBack(all: boolean): Promise<void> {
    for (const r of [...this.byClaim.values(), ...this.emails]) {
      const unused = all ? r.granted : r.granted - r.sent;
      if (unused <= 0) continue;
      await this.quota.refundAttempts(r.workspaceId, r.month, unused).catch((error: Error) => {
        this.logger.error(`Workspace ${r.workspaceId}: ${unused} attempts reserved and not made could not be given back: ${error.message}`);
      });
    }
  }
}

/** A leased delivery with its endpoint's row (all null for a voter email, or an endpoint deleted since). */
type ClaimedRow = ClaimedDelivery & { target_id: string | null } & Omit<SealedTarget, 'id'> & {
  /** The month's attempts the claim reserved for the workspace, in `quota_month` (null: none asked for). */
  granted: number;
  quota_month: string | null;
};

const claimedDelivery = (row: ClaimedRow): ClaimedDelivery => ({
  workspace_id: row.workspace_id,
  id: row.id,
  endpoint_id: row.endpoint_id,
  recipient: row.recipient,
  event_type: row.event_type,
  event_created_at: row.event_created_at,
  body: row.body,
  attempt_count: row.attempt_count,
  plan: row.plan,
});

/** A recipient as `unsubscribed` names it: the address in its normal form (a lookalike is someone else). */
const recipientKey = (workspaceId: string, recipient: string) => `${workspaceId} ${normalEmail(recipient) ?? recipient}`;

const nextHour = () => {
  const at = new Date();
  at.setUTCMinutes(60, 0, 0);
  return at;
};
