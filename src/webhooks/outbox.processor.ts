import { randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { SecretBox } from '../common/secret-box';
import { VERSION } from '../common/version';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DATABASE_TARGET, DatabaseTarget } from '../database/database';
import { updateReturning } from '../database/queries';
import { MetricsService } from '../metrics/metrics.service';
import { discordWebhookUrl } from '../notifications/chat-messages';
import { MailMessage, Mailer } from '../notifications/mailer';
import { PLANS, isPlan } from '../workspaces/plans';
import { EndpointsService, urlContext } from './endpoints.service';
import { emailBody, endpointBody, OutboxEvent, statusChangeForVoters } from './fan-out';
import { OUTBOX_CHANNEL } from './events.service';
import { signatureHeader } from './signature';
import type { EndpointKind, RotatedSecret } from './webhook-endpoint.entity';
import { SendResult, WebhookSender } from './webhook-sender';

/** Failures in a row after which an endpoint is turned off. */
export const MAX_CONSECUTIVE_FAILURES = 20;
const MAX_IN_FLIGHT = 64;
const FAN_OUT_BATCH = 200;
/** Slack and Discord: at most one message per second per channel. */
const CHAT_PACE_MS = 1_000;
const USER_AGENT = `Chorus-Webhooks/${VERSION}`;

interface ClaimedDelivery {
  workspace_id: string;
  id: string;
  /** An endpoint delivery has an endpoint; a voter email has a recipient. */
  endpoint_id: string | null;
  recipient: string | null;
  event_type: string;
  event_created_at: Date;
  body: string;
  attempt_count: number;
}

/** An endpoint as the processor needs it: URL and secrets unsealed. */
interface EndpointTarget {
  id: string;
  kind: EndpointKind;
  url: string;
  enabled: boolean;
  secrets: string[];
  plan: string;
  /** Its URL or a secret does not open with this key: its deliveries fail without being sent. */
  unreadable?: boolean;
}

const isChat = (kind: string | null | undefined) => kind === 'slack' || kind === 'discord';

/**
 * The outbox processor. It fans committed events out to one delivery per subscribed endpoint,
 * claims due deliveries with FOR UPDATE SKIP LOCKED and a lease (so any number of processors
 * may run), sends them outside any transaction, and records each attempt. It wakes on NOTIFY
 * from the committing transaction on a real PostgreSQL, and polls as well (only polls on the
 * embedded database, where NOTIFY does not cross connections).
 */
@Injectable()
export class OutboxProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Outbox');
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly inFlight = new Set<Promise<void>>();
  /** The pass under way, if any: shutdown waits for it, so no claim it makes is left unsent. */
  private running: Promise<void> | null = null;
  private again = false;
  private stopping = false;
  private listener: Client | null = null;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly endpoints: EndpointsService,
    private readonly sender: WebhookSender,
    private readonly scheduler: SchedulerRegistry,
    @Inject(DATABASE_TARGET) private readonly database: DatabaseTarget,
    private readonly box: SecretBox,
    private readonly mailer: Mailer,
    private readonly metrics: MetricsService,
  ) {}

  private get embedded(): boolean {
    return this.database.embedded;
  }

  /** Longer than any attempt: a processor that dies mid-send loses its claim after this. */
  private get leaseMs(): number {
    return 2 * this.config.webhookTimeoutMs + 1_000;
  }

  async onApplicationBootstrap(): Promise<void> {
    const pollMs = this.embedded ? 200 : 1_000;
    this.scheduler.addInterval('outbox-poll', setInterval(() => this.wake(), pollMs));
    if (!this.embedded) await this.listen();
    this.wake();
  }

  /** Takes no new work from now on (the first step of a shutdown). */
  stopClaiming(): void {
    this.stopping = true;
  }

  /** Before the database closes: no new claims; the sends in flight finish and are recorded. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.retryTimer);
    if (this.scheduler.doesExist('interval', 'outbox-poll')) this.scheduler.deleteInterval('outbox-poll');
    await this.listener?.end().catch(() => {});
    this.listener = null;
    await this.running;
    // Sends in flight finish (each is bounded by WEBHOOK_TIMEOUT_MS) and record their outcome.
    await Promise.allSettled([...this.inFlight]);
    this.mailer.close();
  }

  /** Runs a pass now, or right after the one running. */
  wake(): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass().finally(() => {
      this.running = null;
      // A wake during the pass's last query (wakeAtNextRetry) would otherwise be lost until the next poll.
      if (this.again) this.wake();
    });
  }

  private async pass(): Promise<void> {
    try {
      do {
        this.again = false;
        const fanned = await this.fanOut();
        const started = await this.claimAndSend();
        if (fanned === FAN_OUT_BATCH || started > 0) this.again = true;
      } while (this.again && !this.stopping);
      await this.wakeAtNextRetry();
    } catch (error) {
      // The database restarting, say: the next poll tries again; nothing was lost.
      this.logger.warn(`Outbox pass failed: ${(error as Error).message}`);
    }
  }

  /** Retries are due at set times, with no NOTIFY: wake for the next one if it comes before the poll. */
  private async wakeAtNextRetry(): Promise<void> {
    // Every slot busy: the next send to end wakes the processor; no timer, no spinning.
    if (this.inFlight.size >= MAX_IN_FLIGHT) return;
    const [next]: { due_in_ms: number | null }[] = await this.db.query(
      `SELECT (extract(epoch FROM min(next_attempt_at) - now()) * 1000)::integer AS due_in_ms
         FROM webhook_deliveries WHERE status = 'pending' AND locked_by IS NULL`,
    );
    if (next?.due_in_ms === null || next === undefined || this.stopping) return;
    let dueInMs = next.due_in_ms;
    if (dueInMs <= 0) {
      // Due, yet the pass that just ended claimed nothing: held back by a Slack or Discord
      // channel's pace or Retry-After (or no free slot, and an ending send wakes us). Wake when
      // the first such channel opens, not every few milliseconds until then.
      const [held]: { due_in_ms: number | null }[] = await this.db.query(
        `SELECT (extract(epoch FROM min(e.next_send_at) - now()) * 1000)::integer AS due_in_ms
           FROM webhook_endpoints e
          WHERE e.kind <> 'webhook' AND e.next_send_at > now()
            AND EXISTS (SELECT 1 FROM webhook_deliveries d
                         WHERE d.workspace_id = e.workspace_id AND d.endpoint_id = e.id AND d.status = 'pending'
                           AND d.locked_by IS NULL AND d.next_attempt_at <= now())`,
      );
      if (held?.due_in_ms !== null && held !== undefined) dueInMs = held.due_in_ms;
      if (this.stopping) return;
    }
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.wake(), Math.max(0, dueInMs) + 5);
    this.retryTimer.unref();
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.database.url });
    client.on('notification', () => this.wake());
    client.on('error', (error) => {
      this.logger.warn(`LISTEN connection lost (${error.message}); polling until it is back.`);
      if (this.listener === client) this.listener = null;
      setTimeout(() => !this.stopping && this.listen().catch(() => {}), 1_000).unref();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      this.listener = client;
    } catch (error) {
      this.logger.warn(`Could not LISTEN (${(error as Error).message}); polling, and trying again.`);
      await client.end().catch(() => {});
      setTimeout(() => !this.stopping && this.listen().catch(() => {}), 1_000).unref();
    }
  }

  /**
   * Turns committed events into deliveries: one per enabled endpoint subscribed to the type at
   * this moment, in workspaces whose plan has notifications, and for a real status change one
   * email per voter with an address (not its author) when the board has `notify_voters` on.
   * Each body is serialised here, once.
   */
  async fanOut(): Promise<number> {
    return this.db.transaction(async (manager) => {
      const events: OutboxEvent[] = await manager.query(
        `SELECT workspace_id, id, type, created_at, data::text AS data, actor_id FROM outbox_events
          WHERE dispatched_at IS NULL ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [FAN_OUT_BATCH],
      );
      if (events.length === 0) return 0;
      const workspaceIds = [...new Set(events.map((e) => e.workspace_id))];
      const endpoints: { workspace_id: string; id: string; kind: EndpointKind; events: string[] }[] = await manager.query(
        `SELECT e.workspace_id, e.id, e.kind, e.events FROM webhook_endpoints e JOIN workspaces w ON w.id = e.workspace_id
          WHERE e.workspace_id = ANY($1) AND e.enabled AND w.plan <> 'free'`,
        [workspaceIds],
      );
      const rows: (string | null)[][] = [[], [], [], [], [], [], [], []];
      const add = (event: OutboxEvent, id: string, endpointId: string | null, recipient: string | null, body: string) =>
        [event.workspace_id, id, endpointId, recipient, event.id, event.type, event.created_at.toISOString(), body].forEach(
          (value, i) => rows[i].push(value),
        );
      for (const event of events) {
        try {
          for (const endpoint of endpoints) {
            if (endpoint.workspace_id !== event.workspace_id || !endpoint.events.includes(event.type)) continue;
            const id = randomUUID();
            add(event, id, endpoint.id, null, endpointBody(endpoint.kind, id, event));
          }
          const change = statusChangeForVoters(event);
          if (change) {
            for (const to of await this.votersToEmail(manager, event, change.post.board.id!, change.post.id)) {
              add(event, randomUUID(), null, to, emailBody(change, to));
            }
          }
        } catch (error) {
          // One event we cannot turn into messages must not hold back every other one.
          this.logger.error(`Event ${event.id} (${event.type}) could not be fanned out: ${(error as Error).message}`);
        }
      }
      if (rows[0].length > 0) {
        await manager.query(
          `INSERT INTO webhook_deliveries
             (workspace_id, id, endpoint_id, recipient, event_id, event_type, event_created_at, body, next_attempt_at)
           SELECT w, i, e, r, ev, t, c, b, now()
             FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::timestamptz[], $8::text[])
                  AS d(w, i, e, r, ev, t, c, b)
           ON CONFLICT DO NOTHING`,
          rows,
        );
      }
      await manager.query(
        `UPDATE outbox_events SET dispatched_at = now()
          WHERE (workspace_id, id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`,
        [events.map((e) => e.workspace_id), events.map((e) => e.id)],
      );
      return events.length;
    });
  }

  /** Voters of the post with an email address, except whoever made the change. */
  private async votersToEmail(manager: EntityManager, event: OutboxEvent, boardId: string, postId: number) {
    const rows: { email: string }[] = await manager.query(
      `SELECT DISTINCT ON (lower(p.email)) p.email
         FROM votes v
         JOIN people p ON p.workspace_id = v.workspace_id AND p.id = v.person_id
         JOIN boards b ON b.workspace_id = v.workspace_id AND b.id = $3
        WHERE v.workspace_id = $1 AND v.post_id = $2 AND b.notify_voters
          AND p.email IS NOT NULL AND p.id IS DISTINCT FROM $4
        ORDER BY lower(p.email)`,
      [event.workspace_id, postId, boardId, event.actor_id],
    );
    return rows.map((row) => row.email);
  }

  /**
   * Claims as many due deliveries as there are free slots and starts sending them. A Slack or
   * Discord channel gives at most one delivery per second (and none while it asked us to wait):
   * its `next_send_at` is moved on in the claiming transaction.
   */
  private async claimAndSend(): Promise<number> {
    const slots = MAX_IN_FLIGHT - this.inFlight.size;
    if (slots <= 0 || this.stopping) return 0;
    const claimed = await this.db.transaction(async (manager) => {
      const due: { workspace_id: string; id: string; endpoint_id: string | null; kind: string | null }[] =
        await manager.query(
          `SELECT d.workspace_id, d.id, d.endpoint_id, e.kind
             FROM webhook_deliveries d
             LEFT JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id AND e.id = d.endpoint_id
            WHERE d.status = 'pending' AND d.next_attempt_at <= now()
              AND (d.locked_until IS NULL OR d.locked_until < now())
              AND (e.kind IS NULL OR e.kind = 'webhook' OR e.next_send_at <= now())
            ORDER BY d.next_attempt_at, d.created_at
            LIMIT $1
              FOR UPDATE OF d SKIP LOCKED`,
          [slots],
        );
      const channels = [...new Set(due.filter((d) => isChat(d.kind)).map((d) => d.endpoint_id!))];
      const open = channels.length
        ? new Set(
            (
              await updateReturning<{ id: string }>(
                manager,
                `UPDATE webhook_endpoints SET next_send_at = now() + $2 * interval '1 millisecond'
                  WHERE id = ANY($1) AND next_send_at <= now() RETURNING id`,
                [channels, CHAT_PACE_MS],
              )
            ).map((row) => row.id),
          )
        : new Set<string>();
      const taken = new Set<string>();
      const chosen = due.filter((d) => {
        if (!isChat(d.kind)) return true;
        if (!open.has(d.endpoint_id!) || taken.has(d.endpoint_id!)) return false;
        taken.add(d.endpoint_id!); // the oldest due message of the channel
        return true;
      });
      if (chosen.length === 0) return [];
      return updateReturning<ClaimedDelivery>(
        manager,
        `UPDATE webhook_deliveries SET locked_by = $1, locked_until = now() + $2 * interval '1 millisecond'
          WHERE (workspace_id, id) IN (SELECT * FROM unnest($3::uuid[], $4::uuid[]))
          RETURNING workspace_id, id, endpoint_id, recipient, event_type, event_created_at, body, attempt_count`,
        [this.workerId, this.leaseMs, chosen.map((d) => d.workspace_id), chosen.map((d) => d.id)],
      );
    });
    if (claimed.length === 0) return 0;
    const targets = await this.targets(claimed);
    const sendable: ClaimedDelivery[] = [];
    for (const delivery of claimed) {
      if (delivery.recipient !== null) {
        this.start(delivery, null);
        continue;
      }
      const endpoint = targets.get(delivery.endpoint_id!);
      if (!endpoint) continue; // deleted since: its deliveries went with it
      if (!endpoint.enabled) await this.finish(delivery, 'cancelled', 'endpoint_disabled');
      else if (endpoint.unreadable) {
        // A failed attempt (retried, counted towards turning the endpoint off), not the whole batch's failure.
        await this.record(delivery, endpoint, new Date(), {
          statusCode: null,
          error: 'secret_unreadable',
          durationMs: 0,
          responseBody: null,
          retryAfterMs: null,
        });
      } else sendable.push(delivery);
    }
    const granted = await this.reserveQuota(sendable, targets);
    for (const delivery of sendable) {
      if ((granted.get(delivery.workspace_id) ?? 0) <= 0) {
        await this.finish(delivery, 'failed', 'quota_exceeded');
        continue;
      }
      granted.set(delivery.workspace_id, granted.get(delivery.workspace_id)! - 1);
      this.start(delivery, targets.get(delivery.endpoint_id!)!);
    }
    return claimed.length;
  }

  private start(delivery: ClaimedDelivery, endpoint: EndpointTarget | null): void {
    const task = this.attempt(delivery, endpoint)
      .catch(async (error) => {
        this.logger.error(`Delivery ${delivery.id}: its attempt could not be recorded: ${(error as Error).message}`);
        await this.release(delivery).catch(() => {}); // else the lease's end frees it
      })
      .finally(() => {
        this.inFlight.delete(task);
        this.wake();
      });
    this.inFlight.add(task);
  }

  /**
   * Counts this batch's attempts against each workspace's month, one statement per workspace,
   * as far as the quota reaches. Answers how many attempts each workspace may make now.
   */
  private async reserveQuota(deliveries: ClaimedDelivery[], targets: Map<string, EndpointTarget>): Promise<Map<string, number>> {
    const wanted = new Map<string, { count: number; plan: string }>();
    for (const d of deliveries) {
      const entry = wanted.get(d.workspace_id) ?? { count: 0, plan: targets.get(d.endpoint_id!)!.plan };
      entry.count++;
      wanted.set(d.workspace_id, entry);
    }
    const granted = new Map<string, number>();
    for (const [workspaceId, { count, plan }] of wanted) {
      const quota = isPlan(plan) ? PLANS[plan].deliveriesPerMonth : 0;
      if (quota <= 0) {
        granted.set(workspaceId, 0);
        continue;
      }
      const month = `date_trunc('month', now() AT TIME ZONE 'UTC')::date`;
      await this.db.query(
        `INSERT INTO delivery_usage (workspace_id, month, attempts) VALUES ($1, ${month}, 0) ON CONFLICT DO NOTHING`,
        [workspaceId],
      );
      // The row lock of `before` makes read-and-add one step against other processors.
      const [row] = await updateReturning<{ granted: number }>(
        this.db,
        `WITH before AS (SELECT attempts FROM delivery_usage WHERE workspace_id = $1 AND month = ${month} FOR UPDATE)
         UPDATE delivery_usage u SET attempts = LEAST(before.attempts + $2, $3)
           FROM before
          WHERE u.workspace_id = $1 AND u.month = ${month}
         RETURNING (LEAST(before.attempts + $2, $3) - before.attempts)::integer AS granted`,
        [workspaceId, count, quota],
      );
      granted.set(workspaceId, Math.max(0, row?.granted ?? 0));
    }
    return granted;
  }

  private async targets(claimed: ClaimedDelivery[]): Promise<Map<string, EndpointTarget>> {
    const forEndpoints = claimed.filter((d) => d.endpoint_id !== null);
    if (forEndpoints.length === 0) return new Map();
    const rows: {
      id: string;
      kind: EndpointKind;
      url_sealed: string;
      enabled: boolean;
      secret_sealed: string | null;
      rotated_secrets: RotatedSecret[];
      plan: string;
    }[] = await this.db.query(
      `SELECT e.id, e.kind, e.url_sealed, e.enabled, e.secret_sealed, e.rotated_secrets, w.plan
         FROM webhook_endpoints e JOIN workspaces w ON w.id = e.workspace_id
        WHERE (e.workspace_id, e.id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`,
      [forEndpoints.map((d) => d.workspace_id), forEndpoints.map((d) => d.endpoint_id)],
    );
    const now = new Date();
    return new Map(
      rows.map((row) => {
        const target = { id: row.id, kind: row.kind, url: '', enabled: row.enabled, secrets: [] as string[], plan: row.plan };
        try {
          target.secrets = this.endpoints.signingSecrets({ id: row.id, secretSealed: row.secret_sealed, rotatedSecrets: row.rotated_secrets }, now);
          target.url = this.box.open(row.url_sealed, urlContext(row.id));
        } catch {
          // One such row (restored under another ENCRYPTION_KEY, say) must not stop the others in the batch.
          this.logger.error(`Endpoint ${row.id}: its URL or signing secret does not open with this ENCRYPTION_KEY.`);
          return [row.id, { ...target, unreadable: true }];
        }
        return [row.id, target];
      }),
    );
  }

  /** One attempt: signed to an own server, a message to Slack or Discord, or a voter's email. */
  private async attempt(delivery: ClaimedDelivery, endpoint: EndpointTarget | null): Promise<void> {
    const at = new Date();
    let result: SendResult;
    if (!endpoint) {
      result = await this.sendMail(JSON.parse(delivery.body) as MailMessage);
    } else if (endpoint.kind === 'webhook') {
      result = await this.sender.post(
        endpoint.url,
        {
          'Content-Type': 'application/json',
          'User-Agent': USER_AGENT,
          'Chorus-Event': delivery.event_type,
          'Chorus-Delivery': delivery.id,
          'Chorus-Signature': signatureHeader(delivery.body, endpoint.secrets, at),
        },
        delivery.body,
      );
    } else {
      const url = endpoint.kind === 'discord' ? discordWebhookUrl(endpoint.url) : endpoint.url;
      result = await this.sender.post(url, { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT }, delivery.body);
    }
    await this.record(delivery, endpoint, at, result);
    this.report(delivery, endpoint, result);
  }

  /** One log line and the metrics of an attempt. Never the URL: for Slack and Discord it is a secret. */
  private report(delivery: ClaimedDelivery, endpoint: EndpointTarget | null, result: SendResult): void {
    const kind = endpoint?.kind ?? 'email';
    const ok = endpoint ? result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300 : result.statusCode === 250;
    this.metrics.deliveryAttempts.inc({ kind, outcome: ok ? 'success' : 'failure' });
    if (ok) this.metrics.deliveryLatency.observe({ kind }, (Date.now() - new Date(delivery.event_created_at).getTime()) / 1000);
    const line = {
      msg: 'delivery attempt',
      delivery_id: delivery.id,
      workspace_id: delivery.workspace_id,
      endpoint_id: delivery.endpoint_id,
      kind,
      event_type: delivery.event_type,
      attempt: delivery.attempt_count + 1,
      outcome: ok ? 'success' : 'failure',
      status_code: result.statusCode,
      error: result.error,
      duration_ms: result.durationMs,
    };
    if (ok) this.logger.log(line);
    else this.logger.warn(line);
  }

  private async sendMail(message: MailMessage): Promise<SendResult> {
    const started = performance.now();
    const result = { statusCode: null, responseBody: null, retryAfterMs: null };
    try {
      await this.mailer.send(message);
      return { ...result, statusCode: 250, error: null, durationMs: Math.round(performance.now() - started) };
    } catch (error) {
      const code = (error as { responseCode?: number }).responseCode;
      return {
        ...result,
        statusCode: code ?? null,
        error: code ? null : 'smtp_error',
        responseBody: (error as Error).message.slice(0, 2048).replaceAll('\u0000', ''),
        durationMs: Math.round(performance.now() - started),
      };
    }
  }

  /**
   * After an attempt whose outcome could not be recorded: counts it and tries again on the
   * schedule (failed when spent), so that a delivery never loops unrecorded.
   */
  private async release(delivery: ClaimedDelivery): Promise<void> {
    const delay = this.config.webhookRetrySchedule[delivery.attempt_count];
    await this.db.query(
      `UPDATE webhook_deliveries
          SET attempt_count = attempt_count + 1, locked_by = NULL, locked_until = NULL,
              status = CASE WHEN $4::bigint IS NULL THEN 'failed' ELSE 'pending' END,
              reason = CASE WHEN $4::bigint IS NULL THEN 'retries_exhausted' END,
              next_attempt_at = CASE WHEN $4::bigint IS NULL THEN NULL ELSE now() + $4 * interval '1 millisecond' END
        WHERE workspace_id = $1 AND id = $2 AND locked_by = $3`,
      [delivery.workspace_id, delivery.id, this.workerId, delay ?? null],
    );
  }

  private async finish(delivery: ClaimedDelivery, status: 'failed' | 'cancelled', reason: string): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries SET status = $3, reason = $4, next_attempt_at = NULL, locked_by = NULL, locked_until = NULL
        WHERE workspace_id = $1 AND id = $2 AND locked_by = $5`,
      [delivery.workspace_id, delivery.id, status, reason, this.workerId],
    );
  }

  /**
   * Records the attempt and what follows from it, for the delivery and for its endpoint: a
   * failure is retried on the schedule (a 429 from Slack or Discord after the wait it asked
   * for), 404 or 410 from Slack or Discord turns the endpoint off at once, and 20 failures in
   * a row turn any endpoint off.
   */
  private async record(delivery: ClaimedDelivery, endpoint: EndpointTarget | null, at: Date, result: SendResult): Promise<void> {
    const ok = endpoint
      ? result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300
      : result.statusCode === 250;
    const attempts = delivery.attempt_count + 1;
    const ended = new Date(at.getTime() + result.durationMs);
    await this.db.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO delivery_attempts (workspace_id, delivery_id, at, duration_ms, status_code, error, response_body)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [delivery.workspace_id, delivery.id, at, result.durationMs, result.statusCode, result.error, result.responseBody],
      );
      // Slack and Discord say how long to wait; a day at most, whatever they say.
      const waitMs =
        endpoint && isChat(endpoint.kind) && result.statusCode === 429 && result.retryAfterMs !== null
          ? Math.min(result.retryAfterMs, 86_400_000)
          : null;
      if (endpoint && isChat(endpoint.kind)) {
        // The channel's next message leaves a second after this one ended (so they also arrive a
        // second apart), or after the wait a 429 asked for.
        await manager.query(
          `UPDATE webhook_endpoints SET next_send_at = GREATEST(next_send_at, $3::timestamptz + $4 * interval '1 millisecond')
            WHERE workspace_id = $1 AND id = $2`,
          [delivery.workspace_id, endpoint.id, ended, Math.max(CHAT_PACE_MS, waitMs ?? 0)],
        );
      }
      if (ok) {
        const [, updated] = await manager.query(
          `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), attempt_count = $3,
                  next_attempt_at = NULL, locked_by = NULL, locked_until = NULL
            WHERE workspace_id = $1 AND id = $2 AND locked_by = $4`,
          [delivery.workspace_id, delivery.id, attempts, this.workerId],
        );
        if (updated === 0 || !endpoint) return; // lease lost (another processor owns it), or an email
        await manager.query(
          `UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE workspace_id = $1 AND id = $2 AND consecutive_failures <> 0`,
          [delivery.workspace_id, endpoint.id],
        );
        return;
      }
      if (endpoint && isChat(endpoint.kind) && (result.statusCode === 404 || result.statusCode === 410)) {
        // The channel or its webhook is gone: retrying cannot help.
        await this.endpoints.disable(manager, { workspaceId: delivery.workspace_id, id: endpoint.id }, 'gone');
        this.logger.warn(`Endpoint ${endpoint.id} turned off: ${endpoint.kind} answered ${result.statusCode}.`);
        return;
      }
      const delay = this.config.webhookRetrySchedule[attempts - 1];
      const next = delay === undefined ? null : Math.max(delay, waitMs ?? 0);
      const [, updated] = await manager.query(
        `UPDATE webhook_deliveries
            SET attempt_count = $3, locked_by = NULL, locked_until = NULL,
                status = CASE WHEN $5::bigint IS NULL THEN 'failed' ELSE 'pending' END,
                reason = CASE WHEN $5::bigint IS NULL THEN 'retries_exhausted' END,
                next_attempt_at = CASE WHEN $5::bigint IS NULL THEN NULL ELSE $6::timestamptz + $5 * interval '1 millisecond' END
          WHERE workspace_id = $1 AND id = $2 AND locked_by = $4`,
        [delivery.workspace_id, delivery.id, attempts, this.workerId, next, ended],
      );
      if (updated === 0 || !endpoint) return;
      const [counted] = await updateReturning<{ consecutive_failures: number; enabled: boolean }>(
        manager,
        `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1
          WHERE workspace_id = $1 AND id = $2 RETURNING consecutive_failures, enabled`,
        [delivery.workspace_id, endpoint.id],
      );
      if (counted?.enabled && counted.consecutive_failures >= MAX_CONSECUTIVE_FAILURES) {
        await this.endpoints.disable(manager, { workspaceId: delivery.workspace_id, id: endpoint.id }, 'consecutive_failures');
        this.logger.warn(`Endpoint ${endpoint.id} turned off after ${MAX_CONSECUTIVE_FAILURES} failures in a row.`);
      }
    });
  }
}
