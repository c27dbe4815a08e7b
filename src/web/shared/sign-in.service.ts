import { randomInt, randomUUID } from 'node:crypto';
import { Inject, Injectable, INestApplicationContext } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/app-error';
import { normalEmail } from '../../common/email-address';
import { SecretBox } from '../../common/secret-box';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { Links } from '../../config/links';
import { updateReturning } from '../../database/queries';
import { Database, Tx } from '../../database/sql';
import type { MailMessage } from '../../notifications/mailer';
import { sealedBodyContext, SIGN_IN_EMAIL, SIGN_IN_LIFETIME_MS, signInEmail } from '../../notifications/sign-in-email';
import { rateLimited, wholeSeconds } from '../../rate-limit/rate-limit.headers';
import { RateLimitStore } from '../../rate-limit/rate-limit.store';
import { OutboxDeliveries } from '../../outbox/outbox-deliveries.service';
import { createDashboardSignInLink } from '../admin/dashboard-sign-in-link';
import { hashSecret, newSecret, SessionKind } from './sessions.service';

/** Wrong codes after which a code is spent. */
export const MAX_WRONG_CODES = 5;
/** Sign-in emails one address gets at most, per 15 minutes, from every workspace together. */
export const EMAILS_PER_ADDRESS = 3;
const ADDRESS_WINDOW_MS = 15 * 60 * 1000;
const CLIENT_WINDOW_MS = 60 * 60 * 1000;

/** Who a used code or link signs in. */
export interface SignInClaim {
  kind: SessionKind;
  email: string;
  name: string | null;
}

/** Why a code or a link does not sign anyone in, in words for the page. */
export type SignInProblem = string;

/**
 * Sign-in by email, for visitors of a public site and for members of a dashboard: a 6-digit code
 * and a link, good once and for 15 minutes, sent through the outbox's email channel. The code is
 * bound to the browser that asked for it (its sign-in cookie), and 5 wrong codes spend it. Only
 * hashes are stored; the email's body is sealed. At most 3 emails per address per 15 minutes and
 * SIGN_IN_CLIENT_LIMIT per client address per hour, across instances (RateLimitStore): nobody
 * can use Chorus to flood an inbox.
 */
@Injectable()
export class SignInService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly box: SecretBox,
    private readonly limits: RateLimitStore,
    private readonly database: Database,
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
      await tx.rows(
        `INSERT INTO sign_in_codes (workspace_id, id, kind, email, name, code_hash, link_hash, flow_hash, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + $9 * interval '1 millisecond')`,
        [input.workspaceId, id, input.kind, email, input.name, this.codeHash(id, code), hashSecret(linkSecret), hashSecret(input.flow), SIGN_IN_LIFETIME_MS],
      );
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
  async pendingEmail(workspaceId: string, kind: SessionKind, flow: string): Promise<string | null> {
    const [row]: { email: string }[] = await this.db.query(
      `SELECT email FROM sign_in_codes WHERE workspace_id = $1 AND kind = $2 AND flow_hash = $3 AND expires_at > now()
        ORDER BY created_at DESC LIMIT 1`,
      [workspaceId, kind, hashSecret(flow)],
    );
    return row?.email ?? null;
  }

  /**
   * Checks a code typed in the browser that asked for it: who it signs in, or why not. A try is
   * counted before the comparison, so no more than MAX_WRONG_CODES comparisons are ever made,
   * however many are sent at once; the right code is used up in the same step as it is checked.
   */
  async checkCode(workspaceId: string, kind: SessionKind, flow: string, code: string): Promise<SignInClaim | SignInProblem> {
    const digits = code.replace(/\s+/g, '');
    const [latest]: { id: string }[] = await this.db.query(
      `SELECT id FROM sign_in_codes WHERE workspace_id = $1 AND kind = $2 AND flow_hash = $3 ORDER BY created_at DESC LIMIT 1`,
      [workspaceId, kind, hashSecret(flow)],
    );
    if (!latest) return 'That code is not right, or it is not for this browser. Ask for a new code.';
    const [tried] = await updateReturning<{ code_hash: Buffer; failed_attempts: number }>(
      this.db,
      `UPDATE sign_in_codes SET failed_attempts = failed_attempts + 1
        WHERE workspace_id = $1 AND id = $2 AND used_at IS NULL AND expires_at > now() AND failed_attempts < $3
        RETURNING code_hash, failed_attempts`,
      [workspaceId, latest.id, MAX_WRONG_CODES],
    );
    if (!tried) return this.whyNot(workspaceId, latest.id);
    if (!/^\d{6}$/.test(digits) || !this.codeHash(latest.id, digits).equals(tried.code_hash)) {
      const left = MAX_WRONG_CODES - tried.failed_attempts;
      return left > 0
        ? `That code is not right. ${left} ${left === 1 ? 'try' : 'tries'} left.`
        : 'That code is not right, and it was the last try. Ask for a new code.';
    }
    return (await this.use(workspaceId, latest.id, `failed_attempts = failed_attempts - 1`)) ?? this.whyNot(workspaceId, latest.id);
  }

  /** Whether a link's token is still good (shown before its "Sign in" button): null if so, else why not. */
  async checkLink(workspaceId: string, kind: SessionKind, token: string): Promise<SignInProblem | null> {
    const parsed = parseLink(token);
    if (!parsed) return 'This sign-in link is not valid.';
    const [row]: { ok: boolean }[] = await this.db.query(
      `SELECT used_at IS NULL AND expires_at > now() AS ok FROM sign_in_codes
        WHERE workspace_id = $1 AND id = $2 AND kind = $3 AND link_hash = $4`,
      [workspaceId, parsed.id, kind, hashSecret(parsed.secret)],
    );
    if (!row) return 'This sign-in link is not valid.';
    return row.ok ? null : this.whyNot(workspaceId, parsed.id);
  }

  /** Uses a link: who it signs in, or why not (used, expired, not ours). */
  async useLink(workspaceId: string, kind: SessionKind, token: string): Promise<SignInClaim | SignInProblem> {
    const problem = await this.checkLink(workspaceId, kind, token);
    if (problem) return problem;
    const { id } = parseLink(token)!;
    return (await this.use(workspaceId, id)) ?? this.whyNot(workspaceId, id);
  }

  private async use(workspaceId: string, id: string, also?: string): Promise<SignInClaim | null> {
    const [used] = await updateReturning<SignInClaim>(
      this.db,
      `UPDATE sign_in_codes SET used_at = now()${also ? `, ${also}` : ''}
        WHERE workspace_id = $1 AND id = $2 AND used_at IS NULL AND expires_at > now()
        RETURNING kind, email, name`,
      [workspaceId, id],
    );
    return used ?? null;
  }

  private async whyNot(workspaceId: string, id: string): Promise<SignInProblem> {
    const [row]: { used: boolean; expired: boolean; failed_attempts: number }[] = await this.db.query(
      `SELECT used_at IS NOT NULL AS used, expires_at <= now() AS expired, failed_attempts FROM sign_in_codes WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id],
    );
    if (!row) return 'This sign-in is not valid.';
    if (row.used) return 'This code or link was used already. Ask for a new one.';
    if (row.expired) return 'This code or link has expired: they work for 15 minutes. Ask for a new one.';
    return 'Too many wrong codes were tried. Ask for a new code.';
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

function parseLink(token: string): { id: string; secret: string } | null {
  const match = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  return match ? { id: match[1], secret: match[2] } : null;
}

/**
 * A one-time sign-in link with no code (the CLI's `member sign-in-link`), good for 15 minutes;
 * answers its token. A plain function: the CLI has the database, not the pages' services.
 */
export async function createSignInLink(db: Pick<DataSource, 'query'>, workspaceId: string, kind: SessionKind, email: string): Promise<string> {
  const id = randomUUID();
  const linkSecret = newSecret();
  await db.query(
    `INSERT INTO sign_in_codes (workspace_id, id, kind, email, link_hash, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + $6 * interval '1 millisecond')`,
    [workspaceId, id, kind, email, hashSecret(linkSecret), SIGN_IN_LIFETIME_MS],
  );
  return `${id}.${linkSecret}`;
}

/** A one-time link to the dashboard for a member (the CLI's `member sign-in-link`, the demo start). */
export async function memberSignInLink(app: INestApplicationContext, workspaceId: string, email: string): Promise<string> {
  const token = await createDashboardSignInLink(app.get(DataSource), workspaceId, email);
  const links = app.get(Links);
  return `${links.dashboardOrigin}${links.adminPath(`/admin/sign-in/link/${token}`)}`;
}
