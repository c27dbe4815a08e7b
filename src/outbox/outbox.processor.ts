import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { ChangelogService } from '../changelog/changelog.service';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Listener, Notifications } from '../database/listener';
import { MetricsService } from '../metrics/metrics.service';
import { OUTBOX_CHANNEL } from './events.store';
import { isChat, OutboxChannels, Outcome, Sendable } from './channel';
import { EMAIL_CONCURRENCY } from './claims.store';
import { FanOut } from './fan-out';
import { isEmptyLook, Look, Wakes, workspaceNamed } from './look';
import { Recorder, SUCCESSES_PER_WRITE } from './recorder';
import { Scheduler } from './scheduler';

/**
 * The outbox processor wires the engine: fan-out (committed events to deliveries), the
 * scheduler (what this process may claim now), the channels (one send each) and the recorder.
 * It owns this process's send slots (OUTBOX_CONCURRENCY) and when to look for work: on NOTIFY
 * from a committing transaction on a real PostgreSQL, when a send ends, when the next retry is
 * due, and on a poll (the only wake-up on the embedded database, where NOTIFY does not cross
 * connections). Fan-out and claims run apart, each one pass at a time, so that claims go on
 * while a backlog of events is fanned out. Any number of processors may run side by side.
 */
@Injectable()
export class OutboxProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Outbox');
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries that arrived (own servers, voter email) and whose outcome is being written: their send slot is free again. */
  private readonly recording = new Set<string>();
  /** Each workspace's emails this process claimed whose send has not ended yet (see emailEnded). */
  private readonly emailsSending = new Map<string, number>();
  /** The last claim was held back by this process's free slots (work may wait for one): every send's end then wakes a pass. */
  private slotsShort = false;
  /** The claiming pass under way, if any: shutdown waits for it, so no claim it makes is left unsent. */
  private running: Promise<void> | null = null;
  private again = false;
  /** Where the next claiming pass looks (see Look). */
  private readonly claimWakes = new Wakes();
  /** The fan-out under way, if any (shutdown waits for it too); set again by NOTIFY and the poll meanwhile. */
  private fanning: Promise<void> | null = null;
  private fanAgain = false;
  /** Where the next fan-out looks. */
  private readonly fanWakes = new Wakes();
  /** When the retry timer fires (ms since the epoch), while it is set. */
  private retryAt: number | null = null;
  /** Where passes looked since the retry timer was last set (see wakeAtNextRetry). */
  private readonly retryWakes = new Wakes();
  /** The changelog's jobs under way (scheduled entries due, a publish's email batches), if any. */
  private changelogJobs: Promise<void> | null = null;
  private changelogAgain = false;
  private stopping = false;
  private listener: Listener | null = null;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly notifications: Notifications,
    private readonly channels: OutboxChannels,
    private readonly fanOut: FanOut,
    private readonly scheduler: Scheduler,
    private readonly recorder: Recorder,
    private readonly registry: SchedulerRegistry,
    private readonly metrics: MetricsService,
    private readonly changelog: ChangelogService,
  ) {}

  private get slots(): number {
    return this.config.outboxConcurrency;
  }

  /**
   * Sends in flight: attempts under way, but for those already being recorded, up to one
   * write's worth of them (SUCCESSES_PER_WRITE). Beyond that, arrivals waiting for their write
   * hold their slots: when the database writes slower than sends arrive, claims stop until the
   * writes catch up, so that no arrival waits for its write until its lease runs out (another
   * processor would then claim it and send it again).
   */
  private get sending(): number {
    return this.inFlight.size - Math.min(this.recording.size, SUCCESSES_PER_WRITE);
  }

  onApplicationBootstrap(): void {
    // Woken by NOTIFY where one crosses connections; where none does (the embedded database), by a quicker poll.
    this.listener = this.notifications.listen(
      [OUTBOX_CHANNEL],
      {
        notification: (_channel, payload) => this.wakeForEvents(workspaceNamed(payload)),
        onStart: () => this.wakeForEvents(), // what committed while nobody listened
        whileDown: 'the outbox polls every second',
      },
      'Outbox',
    );
    const pollMs = this.listener ? 1_000 : 200;
    this.registry.addInterval(
      'outbox-poll',
      setInterval(() => {
        this.wakeForEvents();
        this.startChangelogJobs();
      }, pollMs),
    );
    this.wakeForEvents();
    this.startChangelogJobs();
  }

  /** Takes no new work from now on (the first step of a shutdown). */
  stopClaiming(): void {
    this.stopping = true;
  }

  /** Before the database closes: no new claims; the sends in flight finish and are recorded. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.retryTimer);
    if (this.registry.doesExist('interval', 'outbox-poll')) this.registry.deleteInterval('outbox-poll');
    await this.listener?.stop();
    this.listener = null;
    await Promise.all([this.running, this.fanning, this.changelogJobs]);
    // Sends in flight finish (each is bounded by WEBHOOK_TIMEOUT_MS) and record their outcome.
    // (The mail transport closes after this, at the application's shutdown.)
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Fans out the events committed since, then claims; now, or right after the fan-out running.
   * `workspaceId`: of that workspace only (on Citus, a NOTIFY names it), else of every one.
   */
  private wakeForEvents(workspaceId?: string): void {
    if (this.stopping) return;
    this.fanWakes.add(workspaceId);
    this.startFanOut();
  }

  /**
   * The changelog's scheduled entries that are due are published, and a published entry's
   * emails made in batches (ChangelogService.runJobs), and a status change's voter emails
   * (FanOut.runMailings): on every poll (a second; two statements
   * when there is nothing to do), so within a poll of the time; the state is in the table, so a restart loses nothing, and the entry's row decides
   * which processor publishes it and makes each batch.
   */
  private startChangelogJobs(): void {
    if (this.stopping) return;
    if (this.changelogJobs) {
      this.changelogAgain = true;
      return;
    }
    this.changelogJobs = (async () => {
      try {
        do {
          this.changelogAgain = false;
          if (await this.changelog.runJobs()) this.changelogAgain = true;
          // A status change's voter emails, made in batches (FanOut.runMailings); the claims
          // are woken for each pass's batches.
          const voters = await this.fanOut.runMailings();
          if (voters.more) this.changelogAgain = true;
          for (const workspaceId of voters.mailed) this.wake(workspaceId);
        } while (this.changelogAgain && !this.stopping);
      } catch (error) {
        this.logger.warn(`Changelog jobs failed: ${(error as Error).message}`);
      }
    })().finally(() => {
      this.changelogJobs = null;
    });
  }

  private startFanOut(): void {
    if (this.stopping) return;
    if (this.fanning) {
      this.fanAgain = true;
      return;
    }
    this.fanning = this.fanOutAll().finally(() => {
      this.fanning = null;
      if (this.fanAgain) this.startFanOut();
    });
  }

  /**
   * Fans out batch after batch while events wait, waking the claims after each batch. A pass
   * claims even when this processor fanned nothing out: another one may have (or a retry is
   * due, or another processor's sends ended).
   */
  private async fanOutAll(): Promise<void> {
    try {
      do {
        this.fanAgain = false;
        const look = this.fanWakes.take();
        const more = await this.fanOut.run(look);
        if (!isEmptyLook(more)) {
          this.fanWakes.addLook(more);
          this.fanAgain = true;
        }
        this.wake(look);
        // A status change's voter emails, when the fan-out made a mailing; otherwise the poll's
        // pass is enough (on Citus its statements read every shard: once an event was too often).
        if (this.fanOut.takeMailingsMade()) this.startChangelogJobs();
      } while (this.fanAgain && !this.stopping);
    } catch (error) {
      // The database restarting, say: the next poll tries again; nothing was lost.
      this.logger.warn(`Outbox fan-out failed: ${(error as Error).message}`);
      this.wake();
    }
  }

  /** Runs a claiming pass now, or right after the one running; looking where `look` says (every workspace by default). */
  wake(look: Look | string = 'all'): void {
    if (this.stopping) return;
    if (typeof look === 'string' && look !== 'all') this.claimWakes.add(look);
    else this.claimWakes.addLook(look);
    this.startPass();
  }

  private startPass(): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass().finally(() => {
      this.running = null;
      // A wake during the pass's last query (wakeAtNextRetry) would otherwise be lost until the next poll.
      if (this.again) this.startPass();
    });
  }

  private async pass(): Promise<void> {
    try {
      const looked = new Wakes();
      do {
        this.again = false;
        const look = this.claimWakes.take();
        looked.addLook(look);
        // Every free slot filled: there may be more to claim. Otherwise a cap or the lack of due
        // work held the claim back, and only a wake (a send ending, new deliveries, the poll) changes that.
        if (await this.claimAndSend(look)) {
          this.claimWakes.addLook(look);
          this.again = true;
        }
      } while (this.again && !this.stopping);
      this.retryWakes.addLook(looked.take());
      await this.wakeAtNextRetry();
    } catch (error) {
      this.logger.warn(`Outbox pass failed: ${(error as Error).message}`);
    }
  }

  /**
   * Retries are due at set times, with no NOTIFY: wake for the next one if it comes before the
   * poll. On Citus after passes that looked in some workspaces only, the timer is set for
   * theirs if it comes first; when it fires, the pass looks everywhere.
   */
  private async wakeAtNextRetry(): Promise<void> {
    // Every slot busy: the next send to end wakes the processor; no timer, no spinning.
    if (this.sending >= this.slots) return;
    const next = await this.scheduler.nextDue(this.retryWakes.take());
    if (next.dueInMs === null || this.stopping) return;
    const at = Date.now() + Math.max(0, next.dueInMs) + 5;
    if (!next.everywhere && this.retryAt !== null && this.retryAt <= at) return;
    clearTimeout(this.retryTimer);
    this.retryAt = at;
    this.retryTimer = setTimeout(() => {
      this.retryAt = null;
      this.wake();
    }, at - Date.now());
    this.retryTimer.unref();
  }

  /** Claims what the scheduler allows into this process's free slots and starts sending it; true when it filled them all. */
  private async claimAndSend(look: Look): Promise<boolean> {
    const free = this.slots - this.sending;
    if (free <= 0 || this.stopping) {
      this.slotsShort = free <= 0;
      return false;
    }
    const { send, leased } = await this.scheduler.claim(free, [...this.recording], look);
    this.slotsShort = leased === free;
    for (const sendable of send) this.start(sendable);
    return leased === free;
  }

  private start(sendable: Sendable): void {
    const email = sendable.kind === 'email';
    const workspaceId = sendable.delivery.workspace_id;
    if (email) this.emailsSending.set(workspaceId, (this.emailsSending.get(workspaceId) ?? 0) + 1);
    let ended = false;
    /** The send is over (arrived, failed, or its attempt threw): once per email. */
    const emailEnded = () => {
      if (!email || ended) return;
      ended = true;
      this.emailEnded(workspaceId);
    };
    const task = this.attempt(sendable, emailEnded)
      .catch(async (error) => {
        this.logger.error(`Delivery ${sendable.delivery.id}: its attempt could not be recorded: ${(error as Error).message}`);
        await this.recorder.release(sendable.delivery).catch(() => {}); // else the lease's end frees it
      })
      .finally(() => {
        this.inFlight.delete(task);
        if (email) emailEnded();
        else this.wake(workspaceId);
      });
    this.inFlight.add(task);
  }

  /**
   * A workspace's email send ended here. Its next emails are claimed in batches: a pass is woken
   * once half of the workspace's share (EMAIL_CONCURRENCY) has gone from this process, not at
   * every email's end (each claim is a round trip and a commit, with the hour's and the month's
   * reservations after it). Other work is not held back by this: when the last claim was short
   * of this process's slots, every end wakes a pass, as do new deliveries, the poll and the
   * ends of other sends.
   */
  private emailEnded(workspaceId: string): void {
    const left = (this.emailsSending.get(workspaceId) ?? 1) - 1;
    if (left > 0) this.emailsSending.set(workspaceId, left);
    else this.emailsSending.delete(workspaceId);
    if (left > EMAIL_CONCURRENCY / 2 && !this.slotsShort) return;
    this.wake(workspaceId);
  }

  private async attempt(sendable: Sendable, emailEnded: () => void): Promise<void> {
    const at = new Date();
    let outcome: Outcome;
    try {
      outcome = await this.channels.get(sendable.kind).send(sendable.delivery, sendable.endpoint);
    } catch (error) {
      emailEnded();
      throw error;
    }
    // An arrival changes no endpoint's failures nor a chat channel's pace: its slot may be taken
    // again while it is written. A failure keeps its slot until written (it may open the circuit).
    const arrived = outcome.ok && !isChat(sendable.kind);
    if (arrived) {
      this.recording.add(sendable.delivery.id);
      if (sendable.kind === 'email') emailEnded();
      else this.wake(sendable.delivery.workspace_id);
    }
    try {
      await this.recorder.record(sendable, at, outcome);
    } finally {
      // Written: when arrivals waiting for their write were holding slots (see `sending`), one is free again.
      const held = this.recording.size > SUCCESSES_PER_WRITE;
      this.recording.delete(sendable.delivery.id);
      if (held) this.wake(sendable.delivery.workspace_id);
    }
    this.report(sendable, outcome);
  }

  /** One log line and the metrics of an attempt. Never the URL: for Slack and Discord it is a secret. */
  private report({ delivery, kind }: Sendable, outcome: Outcome): void {
    this.metrics.deliveryAttempts.inc({ kind, outcome: outcome.ok ? 'success' : 'failure' });
    if (outcome.ok) {
      this.metrics.deliveryLatency.observe({ kind }, (Date.now() - new Date(delivery.event_created_at).getTime()) / 1000);
    }
    const line = {
      msg: 'delivery attempt',
      delivery_id: delivery.id,
      workspace_id: delivery.workspace_id,
      endpoint_id: delivery.endpoint_id,
      kind,
      event_type: delivery.event_type,
      attempt: delivery.attempt_count + 1,
      outcome: outcome.ok ? 'success' : 'failure',
      status_code: outcome.statusCode,
      error: outcome.error,
      duration_ms: outcome.durationMs,
    };
    if (outcome.ok) this.logger.log(line);
    else this.logger.warn(line);
  }
}
