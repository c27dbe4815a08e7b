import { randomInt, randomUUID } from 'node:crypto';
import { Inject, Injectable, INestApplicationContext } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { normalEmail } from '../../common/email-address';
import { SecretBox } from '../../common/secret-box';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { Links } from '../../config/links';
import { Database, Tx } from '../../database/sql';
import type { MailMessage } from '../../notifications/mailer';
import { sealedBodyContext, SIGN_IN_EMAIL, SIGN_IN_LIFETIME_MS, signInEmail } from '../../notifications/sign-in-email';
import { rateLimited, wholeSeconds } from '../../rate-limit/rate-limit.headers';
import { RateLimitCounters } from '../../rate-limit/counters';
import { OutboxDeliveries } from '../../outbox/outbox-deliveries.service';
import { hashSecret, newSecret, SessionKind } from './sessions.service';
import { SessionsStore, SignInClaim } from './sessions.store';

export type { SignInClaim } from './sessions.store';

/** Wrong codes after which a code is spent. */
export const MAX_WRONG_CODES = 5;
/** Sign-in emails one address gets at most, per 15 minutes, from every workspace together. */
export const EMAILS_PER_ADDRESS = 3;
const ADDRESS_WINDOW_MS = 15 * 60 * 1000;
const CLIENT_WINDOW_MS = 60 * 60 * 1000;

/** Why a code or a link does not sign anyone in, in words for the page. */
export type SignInProblem = string;

/** What a wrong code is told: the tries left, or that it was the last. */
export function wrongCode(triesLeft: number): SignInProblem {
  return triesLeft > 0
    ? `That code is not right. ${triesLeft} ${triesLeft === 1 ? 'try' : 'tries'} left.`
    : 'That code is not right, and it was the last try. Ask for a new code.';
}

/** Why a code or a link that was found does not sign in (used, expired, or too many wrong codes). */
export function spent(state: { used: boolean; expired: boolean }): SignInProblem {
  if (state.used) return 'This code or link was used already. Ask for a new one.';
  if (state.expired) return 'This code or link has expired: they work for 15 minutes. Ask for a new one.';
  return 'Too many wrong codes were tried. Ask for a new code.';
}

/**
 * Sign-in by email, for visitors of a public site and for members of a dashboard: a 6-digit code
 * and a link, good once and for 15 minutes, sent through the outbox's email channel. The code is
 * bound to the browser that asked for it (its sign-in cookie), and 5 wrong codes spend it. Only
 * hashes are stored; the email's body is sealed. At most 3 emails per address per 15 minutes and
 * SIGN_IN_CLIENT_LIMIT per client address per hour, across instances (RateLimitCounters): nobody
 * can use Chorus to flood an inbox.
 */
@Injectable()
export class SignInService {
  constructor(
    private readonly database: Database,
    private readonly store: SessionsStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly box: SecretBox,
    private readonly limits: RateLimitCounters,
    private readonly outbox: OutboxDeliveries,
  ) {}

  /**
   * Emails a code and a link (`link(token)` makes its address) to `email` in its normal form (the
   * address the person is then found by), bound to the browser whose sign-in cookie holds `flow`.
   * The caller has counted it (withinLimits).
   */
  async sendCode(input: {
    workspaceId: string;
    place: string;
    kind: SessionKind;
    email: string;
    name: string | null;
    flow: string;
    link: (token: string) => string;
  }): Promise<void> {
    const email = addressOf(input.email);
    const id = randomUUID();
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const linkSecret = newSecret();
    await this.database.transaction(async (tx) => {
      const { workspaceId, kind, name } = input;
      const hashes = { codeHash: this.codeHash(id, code), linkHash: hashSecret(linkSecret), flowHash: hashSecret(input.flow) };
      await this.store.addCode(tx, { workspaceId, id, kind, email, name, ...hashes }, SIGN_IN_LIFETIME_MS);
      const message = signInEmail({ to: email, place: input.place, code, link: input.link(`${id}.${linkSecret}`), dashboard: input.kind === 'member' });
      await this.queueEmail(tx, input.workspaceId, id, message);
    });
  }

  /**
   * Counts a sign-in email to `email` asked for by `client` against the limits, or refuses it
   * (429): SIGN_IN_CLIENT_LIMIT per client address an hour, EMAILS_PER_ADDRESS per address in 15
   * minutes. Counted whether or not an email is then sent (the dashboard sends none to an address
   * that is no member's), so that the limits say nothing about who is a member.
   */
  async withinLimits(email: string, client: string): Promise<void> {
    const byClient = await this.limits.take(`signin:client:${client}`, this.config.signInClientLimit, CLIENT_WINDOW_MS);
    if (!byClient.allowed) {
      throw rateLimited(wholeSeconds(byClient.resetInMs), 'Too many sign-in emails were asked for from your network in the last hour.');
    }
    const byAddress = await this.limits.take(`signin:address:${addressOf(email)}`, EMAILS_PER_ADDRESS, ADDRESS_WINDOW_MS);
    if (!byAddress.allowed) {
      throw rateLimited(wholeSeconds(byAddress.resetInMs), `${EMAILS_PER_ADDRESS} sign-in emails were sent to this address in the last 15 minutes.`);
    }
  }

  /** The address the latest code of this browser's sign-in went to (to show where to look), if any. */
  pendingEmail(workspaceId: string, kind: SessionKind, flow: string): Promise<string | null> {
    return this.store.pendingEmail(workspaceId, kind, hashSecret(flow));
  }

  /**
   * Checks a code typed in the browser that asked for it: who it signs in, or why not. A try is
   * counted before the comparison, so no more than MAX_WRONG_CODES comparisons are ever made,
   * however many are sent at once; the right code is used up in the same step as it is checked.
   */
  async checkCode(workspaceId: string, kind: SessionKind, flow: string, code: string): Promise<SignInClaim | SignInProblem> {
    const digits = code.replace(/\s+/g, '');
    const latest = await this.store.latestCode(workspaceId, kind, hashSecret(flow));
    if (!latest) return 'That code is not right, or it is not for this browser. Ask for a new code.';
    const tried = await this.store.tryCode(workspaceId, latest, MAX_WRONG_CODES);
    if (!tried) return this.whyNot(workspaceId, latest);
    if (!/^\d{6}$/.test(digits) || tried.code_hash === null || !this.codeHash(latest, digits).equals(tried.code_hash)) {
      return wrongCode(MAX_WRONG_CODES - tried.failed_attempts);
    }
    return (await this.store.useCode(workspaceId, latest, true)) ?? this.whyNot(workspaceId, latest);
  }

  /** Whether a link's token is still good (shown before its "Sign in" button): null if so, else why not. */
  async checkLink(workspaceId: string, kind: SessionKind, token: string): Promise<SignInProblem | null> {
    const parsed = parseLink(token);
    if (!parsed) return 'This sign-in link is not valid.';
    const ok = await this.store.codeLinkLive(workspaceId, parsed.id, kind, hashSecret(parsed.secret));
    if (ok === undefined) return 'This sign-in link is not valid.';
    return ok ? null : this.whyNot(workspaceId, parsed.id);
  }

  /** Uses a link: who it signs in, or why not (used, expired, not ours). */
  async useLink(workspaceId: string, kind: SessionKind, token: string): Promise<SignInClaim | SignInProblem> {
    const problem = await this.checkLink(workspaceId, kind, token);
    if (problem) return problem;
    const { id } = parseLink(token)!;
    return (await this.store.useCode(workspaceId, id, false)) ?? this.whyNot(workspaceId, id);
  }

  private async whyNot(workspaceId: string, id: string): Promise<SignInProblem> {
    const state = await this.store.codeState(workspaceId, id);
    return state ? spent(state) : 'This sign-in is not valid.';
  }

  private codeHash(id: string, code: string): Buffer {
    return this.box.mac(`${id}:${code}`, 'sign-in-code');
  }

  /**
   * Queues a sign-in email (`eventId`: the code or sign-in it carries) in the workspace's outbox,
   * sealed: the code is readable only by the processor that sends it.
   */
  async queueEmail(tx: Tx, workspaceId: string, codeId: string, message: MailMessage): Promise<void> {
    const id = randomUUID();
    const body = this.box.seal(JSON.stringify(message), sealedBodyContext(id));
    this.outbox.queueEmail(tx, { workspaceId, id, recipient: message.to, eventId: codeId, eventType: SIGN_IN_EMAIL, body });
  }
}

/** An address in its normal form; the forms have refused what has none. */
function addressOf(email: string): string {
  const normal = normalEmail(email);
  if (normal === null) throw AppError.invalid('email', 'must be a valid email address');
  return normal;
}

/** `<id>.<secret>`: a link's token, to a public site or to the dashboard. */
export function parseLink(token: string): { id: string; secret: string } | null {
  const match = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  return match ? { id: match[1], secret: match[2] } : null;
}

/** A one-time sign-in link to a public site with no code, good for 15 minutes; answers its token. */
export async function createSignInLink(store: SessionsStore, workspaceId: string, kind: SessionKind, email: string): Promise<string> {
  const id = randomUUID();
  const linkSecret = newSecret();
  await store.addLink({ workspaceId, id, kind, email, linkHash: hashSecret(linkSecret) }, SIGN_IN_LIFETIME_MS);
  return `${id}.${linkSecret}`;
}

/**
 * A one-time sign-in link to the dashboard for a member, with no code (the CLI's `member
 * sign-in-link`), good for 15 minutes; answers its token. A plain function over the store: the
 * CLI has the database, not the pages' services.
 */
export async function createDashboardSignInLink(store: SessionsStore, workspaceId: string, email: string): Promise<string> {
  const id = randomUUID();
  const secret = newSecret();
  await store.addDashboardLink({ id, email: normalEmail(email) ?? email, workspaceId, linkHash: hashSecret(secret) }, SIGN_IN_LIFETIME_MS);
  return `${id}.${secret}`;
}

/** A one-time link to the dashboard for a member (the CLI's `member sign-in-link`, the demo start). */
export async function memberSignInLink(app: INestApplicationContext, workspaceId: string, email: string): Promise<string> {
  const token = await createDashboardSignInLink(new SessionsStore(app.get(Database)), workspaceId, email);
  const links = app.get(Links);
  return `${links.dashboardOrigin}${links.adminPath(`/admin/sign-in/link/${token}`)}`;
}
