import { Injectable, Logger } from '@nestjs/common';
import { SIGN_IN_EMAIL, SIGN_IN_LIFETIME_MS } from '../notifications/sign-in-email';
import { ClaimedDelivery, EndpointTarget, Sendable } from './channel';
import { ClaimedRow, ClaimsStore, recipientKey } from './claims.store';
import { EndpointTargets } from './endpoint-targets';
import { Look } from './look';
import { Quota } from './quota';
import { Recorder } from './recorder';

/**
 * The fair scheduler: claims what this processor may send now (see ClaimsStore), leases it, and
 * settles what must not be sent (endpoint turned off, secrets unreadable, recipient
 * unsubscribed, quota spent, hourly email cap reached) before any channel sees it. Quota is
 * asked here: the month's attempts within the claim's statement, the hour's emails after it.
 */
@Injectable()
export class Scheduler {
  constructor(
    private readonly claims: ClaimsStore,
    private readonly targets: EndpointTargets,
    private readonly quota: Quota,
    private readonly recorder: Recorder,
  ) {}

  /**
   * Claims up to `slots` deliveries and answers those to send now, with where they go, and how
   * many were leased (those settled here without a send included). `delivered`: deliveries of
   * this processor that arrived (to an own server, or a voter email) and whose outcome is being
   * written; they still hold their lease, but no longer a send: they do not count as in flight.
   */
  async claim(slots: number, delivered: string[] = [], look: Look = 'all'): Promise<{ send: Sendable[]; leased: number }> {
    const claimed = await this.claims.claim(slots, delivered, look);
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
        targets.set(target_id, this.targets.open({ id: target_id, kind, url_sealed, enabled, secret_sealed, rotated_secrets }, now));
      }
    }
    const unsubscribed = await this.claims.unsubscribed(claimed.filter((d) => d.recipient !== null && d.event_type !== SIGN_IN_EMAIL));
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

  /** When the next delivery not under lease is due (see ClaimsStore.nextDue): for the retry timer. */
  nextDue(look: Look): Promise<{ dueInMs: number | null; everywhere: boolean }> {
    return this.claims.nextDue(look);
  }

  /**
   * Every attempt counts against the workspace's month: past its quota a delivery ends `failed`
   * (`quota_exceeded`). The claim reserved the attempts of deliveries to endpoints that are on
   * and of emails (but sign-in codes): those granted go to the endpoints' deliveries first, then
   * to the emails the hour allows. Past EMAIL_HOURLY_LIMIT emails wait for the next hour,
   * untried and uncounted (what the claim reserved for them is given back, with what it
   * reserved for the unsubscribed).
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
      // Sign-in emails are not notifications: a person asked for each (their limits are where it
      // is asked for), on every plan, and none counts against the workspace's quotas.
      go.push(...all.filter((s) => s.delivery.event_type === SIGN_IN_EMAIL));
      const emails = all.filter((s) => s.kind === 'email' && s.delivery.event_type !== SIGN_IN_EMAIL);
      let thisHour: Sendable[] = [];
      if (emails.length > 0) {
        const allowed = await this.quota.reserveEmails(workspaceId, emails.length);
        await this.recorder.defer(
          emails.slice(allowed).map((s) => s.delivery),
          nextHour(),
        );
        thisHour = emails.slice(0, allowed);
      }
      await within([...all.filter((s) => s.kind !== 'email'), ...thisHour], reserved.byClaim.get(workspaceId));
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
 * What one claim reserved of the months' attempts, in the claim's statement (deliveries to
 * endpoints that are on, emails but sign-in codes). What it does not send (a secret that no
 * longer opens, emails the hour holds back or whose recipient unsubscribed; everything, when
 * settling the claim failed) is given back.
 */
class Reservations {
  readonly byClaim = new Map<string, Reservation>();
  private readonly logger = new Logger('Outbox');

  constructor(private readonly quota: Quota) {}

  /** Gives back what was reserved and not sent; with `all`, everything (nothing was sent). */
  async giveBack(all: boolean): Promise<void> {
    for (const r of this.byClaim.values()) {
      const unused = all ? r.granted : r.granted - r.sent;
      if (unused <= 0) continue;
      await this.quota.refundAttempts(r.workspaceId, r.month, unused).catch((error: Error) => {
        this.logger.error(`Workspace ${r.workspaceId}: ${unused} attempts reserved and not made could not be given back: ${error.message}`);
      });
    }
  }
}

const claimedDelivery = (row: ClaimedRow): ClaimedDelivery => ({
  workspace_id: row.workspace_id,
  id: row.id,
  endpoint_id: row.endpoint_id,
  recipient: row.recipient,
  event_type: row.event_type,
  event_created_at: row.event_created_at,
  body: row.body,
  event_data: row.event_data,
  attempt_count: row.attempt_count,
  plan: row.plan,
});

const nextHour = () => {
  const at = new Date();
  at.setUTCMinutes(60, 0, 0);
  return at;
};
