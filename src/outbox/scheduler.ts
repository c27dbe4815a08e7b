import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { updateReturning } from '../database/queries';
import { EndpointsService } from '../webhooks/endpoints.service';
import { ChannelKind, ClaimedDelivery, isChat, Sendable } from './channel';
import { Lease } from './lease';
import { Quota } from './quota';
import { CHAT_PACE_MS, Recorder } from './recorder';

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
 * - a workspace gets at most OUTBOX_WORKSPACE_CONCURRENCY in flight;
 * - the free slots go round-robin: each workspace's first delivery, then each one's second, …,
 *   and among equals to the workspace with the fewest in flight.
 */
const CLAIMABLE = `
  WITH RECURSIVE queues AS (
    (SELECT d.workspace_id, ${QUEUE} AS queue FROM webhook_deliveries d
      WHERE d.status = 'pending' ORDER BY d.workspace_id, ${QUEUE} LIMIT 1)
    UNION ALL
    SELECT n.workspace_id, n.queue FROM queues q, LATERAL (
      SELECT d.workspace_id, ${QUEUE} AS queue FROM webhook_deliveries d
       WHERE d.status = 'pending' AND (d.workspace_id, ${QUEUE}) > (q.workspace_id, q.queue)
       ORDER BY d.workspace_id, ${QUEUE} LIMIT 1) n
  ),
  flight AS (
    SELECT d.workspace_id, ${QUEUE} AS queue, count(*)::integer AS n FROM webhook_deliveries d
     WHERE d.status = 'pending' AND d.locked_by IS NOT NULL AND d.locked_until > now()
     GROUP BY 1, 2
  ),
  workspace_flight AS (SELECT workspace_id, sum(n)::integer AS n FROM flight GROUP BY 1),
  room AS (
    SELECT q.workspace_id, q.queue, e.kind,
           CASE WHEN e.id IS NULL THEN $4
                WHEN e.kind <> 'webhook' THEN CASE WHEN e.next_send_at <= now() THEN 1 ELSE 0 END
                WHEN e.consecutive_failures >= $3 THEN 1
                ELSE $2 END - coalesce(f.n, 0) AS free
      FROM queues q
      LEFT JOIN webhook_endpoints e ON e.workspace_id = q.workspace_id AND e.id = q.queue
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
             AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until < now())
           ORDER BY d.next_attempt_at, d.created_at LIMIT r.free) due
      ) c
     WHERE r.free > 0
  )
  SELECT c.workspace_id, c.id, c.endpoint_id, c.kind
    FROM candidates c LEFT JOIN workspace_flight w ON w.workspace_id = c.workspace_id
   WHERE c.workspace_rank <= $5 - coalesce(w.n, 0)
   ORDER BY c.workspace_rank, coalesce(w.n, 0), c.next_attempt_at
   LIMIT $1`;

/** The one lock every claim takes (any 64-bit number of our own). */
const CLAIM_LOCK = 7_302_318_455_120_911;

/**
 * The fair scheduler: claims what this processor may send now (see CLAIMABLE), leases it, and
 * settles what must not be sent (endpoint turned off, secrets unreadable, recipient
 * unsubscribed, quota spent, hourly email cap reached) before any channel sees it. Quota is
 * asked here, once per claim and workspace.
 */
@Injectable()
export class Scheduler {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly lease: Lease,
    private readonly endpoints: EndpointsService,
    private readonly quota: Quota,
    private readonly recorder: Recorder,
  ) {}

  /** Claims up to `slots` deliveries and answers those to send now, with where they go. */
  async claim(slots: number): Promise<Sendable[]> {
    const claimed = await this.lock(slots);
    if (claimed.length === 0) return [];
    const targets = await this.endpoints.targets(
      claimed.filter((d) => d.endpoint_id !== null).map((d) => ({ workspace_id: d.workspace_id, endpoint_id: d.endpoint_id! })),
    );
    const unsubscribed = await this.unsubscribed(claimed.filter((d) => d.recipient !== null));
    const wanted: Sendable[] = [];
    for (const delivery of claimed) {
      if (delivery.recipient !== null) {
        if (unsubscribed.has(`${delivery.workspace_id} ${delivery.recipient.toLowerCase()}`)) {
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
    return this.withinQuota(wanted);
  }

  /** Picks and leases; chat channels' next turn moves on in the same transaction. */
  private lock(slots: number): Promise<ClaimedDelivery[]> {
    return this.db.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock($1)`, [CLAIM_LOCK]);
      const chosen: { workspace_id: string; id: string; endpoint_id: string | null; kind: ChannelKind | null }[] =
        await manager.query(CLAIMABLE, [
          slots,
          this.config.outboxEndpointConcurrency,
          BREAKER_THRESHOLD,
          EMAIL_CONCURRENCY,
          this.config.outboxWorkspaceConcurrency,
        ]);
      if (chosen.length === 0) return [];
      const channels = chosen.filter((d) => isChat(d.kind)).map((d) => d.endpoint_id!);
      if (channels.length > 0) {
        await manager.query(
          `UPDATE webhook_endpoints SET next_send_at = now() + $2 * interval '1 millisecond' WHERE id = ANY($1)`,
          [channels, CHAT_PACE_MS],
        );
      }
      return updateReturning<ClaimedDelivery>(
        manager,
        `UPDATE webhook_deliveries d SET locked_by = $1, locked_until = now() + $2 * interval '1 millisecond'
           FROM workspaces w
          WHERE (d.workspace_id, d.id) IN (SELECT * FROM unnest($3::uuid[], $4::uuid[])) AND d.status = 'pending'
            AND w.id = d.workspace_id
          RETURNING d.workspace_id, d.id, d.endpoint_id, d.recipient, d.event_type, d.event_created_at, d.body,
                    d.attempt_count, w.plan`,
        [this.lease.owner, this.lease.ms, chosen.map((d) => d.workspace_id), chosen.map((d) => d.id)],
      );
    });
  }

  /** Recipients of these emails who asked for no more, as `<workspace id> <lower-case address>`. */
  private async unsubscribed(emails: ClaimedDelivery[]): Promise<Set<string>> {
    if (emails.length === 0) return new Set();
    const rows: { key: string }[] = await this.db.query(
      `SELECT DISTINCT p.workspace_id || ' ' || lower(p.email) AS key
         FROM people p JOIN unnest($1::uuid[], $2::text[]) AS r(workspace_id, email)
           ON p.workspace_id = r.workspace_id AND lower(p.email) = lower(r.email)
        WHERE p.email_unsubscribed_at IS NOT NULL`,
      [emails.map((d) => d.workspace_id), emails.map((d) => d.recipient)],
    );
    return new Set(rows.map((row) => row.key));
  }

  /**
   * Every attempt counts against the workspace's month: past its quota a delivery ends `failed`
   * (`quota_exceeded`). Emails also count against the workspace's hour: past EMAIL_HOURLY_LIMIT
   * they wait for the next hour, untried.
   */
  private async withinQuota(wanted: Sendable[]): Promise<Sendable[]> {
    const byWorkspace = new Map<string, Sendable[]>();
    for (const s of wanted) byWorkspace.set(s.delivery.workspace_id, [...(byWorkspace.get(s.delivery.workspace_id) ?? []), s]);
    if (byWorkspace.size === 0) return [];
    const go: Sendable[] = [];
    for (const [workspaceId, all] of byWorkspace) {
      let sendable = all;
      const emails = all.filter((s) => s.kind === 'email');
      if (emails.length > 0) {
        const allowed = await this.quota.reserveEmails(workspaceId, emails.length);
        const held = emails.slice(allowed);
        await this.recorder.defer(
          held.map((s) => s.delivery),
          nextHour(),
        );
        sendable = all.filter((s) => !held.includes(s));
      }
      const granted = await this.quota.reserveAttempts(workspaceId, all[0].delivery.plan, sendable.length);
      for (const s of sendable.slice(granted)) await this.recorder.finish(s.delivery, 'failed', 'quota_exceeded');
      go.push(...sendable.slice(0, granted));
    }
    return go;
  }
}

const nextHour = () => {
  const at = new Date();
  at.setUTCMinutes(60, 0, 0);
  return at;
};
