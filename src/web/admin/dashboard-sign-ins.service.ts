import { randomInt, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/app-error';
import { normalEmail } from '../../common/email-address';
import { SecretBox } from '../../common/secret-box';
import { updateReturning } from '../../database/queries';
import { Database } from '../../database/sql';
import { SIGN_IN_LIFETIME_MS, signInEmail } from '../../notifications/sign-in-email';
import { WorkspacesService } from '../../workspaces/workspaces.service';
import { hashSecret, newSecret } from '../shared/sessions.service';
import { MAX_WRONG_CODES, SignInProblem, SignInService } from '../shared/sign-in.service';

/** A sign-in whose code or link was right: whose it is, and where a link signs in. */
export interface DashboardClaim {
  id: string;
  email: string;
  workspaceId: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** What a stranger's code is compared with: a MAC no code can have (the member's and the stranger's checks are the same work). */
const NO_CODE = Buffer.alloc(32);

const codeMac = (box: SecretBox, id: string, code: string) => box.mac(`${id}:${code}`, 'dashboard-sign-in-code');

/** `<id>.<secret>`: a link's token. */
function parseLink(token: string): { id: string; secret: string } | null {
  const match = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/.exec(token);
  return match && UUID.test(match[1]) ? { id: match[1], secret: match[2] } : null;
}

/**
 * The dashboard's sign-ins (dashboard_sign_ins), made so that nothing in an answer tells whether
 * an address is a member's: the browser's cookie is an opaque secret, and asking for a code does
 * the same work for anyone (one row, keyed by that secret's hash); whether the address is a
 * member's, and the email to a member, are worked out after the answer (`deliver`). A wrong code
 * is counted and told the same way for a member and a stranger. A sign-in is used once: its code
 * or link makes it verified, and the first session made from it uses it up, choice of workspace
 * included, so no request of it signs anyone in again.
 */
@Injectable()
export class DashboardSignIns {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly box: SecretBox,
    private readonly workspaces: WorkspacesService,
    private readonly signIn: SignInService,
    private readonly database: Database,
  ) {}

  /** A new sign-in for this address: its row and the secret for the browser's cookie. Nothing is looked up. */
  async ask(email: string): Promise<{ id: string; flow: string }> {
    const normal = normalEmail(email);
    if (normal === null) throw AppError.invalid('email', 'must be a valid email address');
    const flow = newSecret();
    const [row]: { id: string }[] = await this.db.query(
      `INSERT INTO dashboard_sign_ins (flow_hash, email, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond') RETURNING id`,
      [hashSecret(flow), normal, SIGN_IN_LIFETIME_MS],
    );
    return { id: row.id, flow };
  }

  /**
   * Looks after a sign-in once its answer is out: a member's address gets a code and a link
   * (`link(token)` makes its address), named after the first of their workspaces; any other
   * address gets nothing.
   */
  async deliver(id: string, link: (token: string) => string): Promise<void> {
    const [row]: { email: string }[] = await this.db.query(`SELECT email FROM dashboard_sign_ins WHERE id = $1 AND handled_at IS NULL`, [id]);
    if (!row) return;
    const [first] = await this.workspaces.memberships(row.email);
    if (!first) {
      await this.db.query(`UPDATE dashboard_sign_ins SET handled_at = now() WHERE id = $1`, [id]);
      return;
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const linkSecret = newSecret();
    await this.database.transaction(async (tx) => {
      await tx.rows(
        `UPDATE dashboard_sign_ins SET workspace_id = $2, code_hash = $3, link_hash = $4, handled_at = now() WHERE id = $1`,
        [id, first.workspace.id, codeMac(this.box, id, code), hashSecret(linkSecret)],
      );
      const message = signInEmail({ to: row.email, place: first.workspace.name, code, link: link(`${id}.${linkSecret}`), dashboard: true });
      await this.signIn.queueEmail(tx, first.workspace.id, id, message);
    });
  }

  /**
   * Checks a code typed in the browser that asked for it (its cookie's `flow`): the claim, or
   * why not. A try is counted before the comparison, so no more than MAX_WRONG_CODES are ever
   * made; the right code makes the sign-in verified in the same step.
   */
  async checkCode(flow: string, code: string): Promise<DashboardClaim | SignInProblem> {
    const digits = code.replace(/\s+/g, '');
    const [tried] = await updateReturning<{ id: string; code_hash: Buffer | null; failed_attempts: number }>(
      this.db,
      `UPDATE dashboard_sign_ins SET failed_attempts = failed_attempts + 1
        WHERE flow_hash = $1 AND verified_at IS NULL AND expires_at > now() AND failed_attempts < $2
        RETURNING id, code_hash, failed_attempts`,
      [hashSecret(flow), MAX_WRONG_CODES],
    );
    if (!tried) return this.whyNot(`flow_hash = $1`, hashSecret(flow));
    const expected = tried.code_hash ?? NO_CODE;
    const given = codeMac(this.box, tried.id, /^\d{6}$/.test(digits) ? digits : 'none');
    if (!(timingSafeEqual(given, expected) && tried.code_hash !== null && /^\d{6}$/.test(digits))) {
      const left = MAX_WRONG_CODES - tried.failed_attempts;
      return left > 0
        ? `That code is not right. ${left} ${left === 1 ? 'try' : 'tries'} left.`
        : 'That code is not right, and it was the last try. Ask for a new code.';
    }
    return (await this.verify(tried.id, `failed_attempts = failed_attempts - 1`)) ?? this.whyNot(`id = $1`, tried.id);
  }

  /** Whether a link's token is still good (shown before its "Sign in" button): null if so, else why not. */
  async checkLink(token: string): Promise<SignInProblem | null> {
    const parsed = parseLink(token);
    if (!parsed) return 'This sign-in link is not valid.';
    const [row]: { ok: boolean }[] = await this.db.query(
      `SELECT verified_at IS NULL AND expires_at > now() AS ok FROM dashboard_sign_ins WHERE id = $1 AND link_hash = $2`,
      [parsed.id, hashSecret(parsed.secret)],
    );
    if (!row) return 'This sign-in link is not valid.';
    return row.ok ? null : this.whyNot(`id = $1`, parsed.id);
  }

  /** Uses a link: the claim (the workspace it signs in to), or why not. */
  async useLink(token: string): Promise<DashboardClaim | SignInProblem> {
    const problem = await this.checkLink(token);
    if (problem) return problem;
    const { id } = parseLink(token)!;
    return (await this.verify(id)) ?? this.whyNot(`id = $1`, id);
  }

  /** The verified, unused sign-in of this browser (a member of several workspaces, choosing one), if any. */
  async verified(flow: string): Promise<DashboardClaim | null> {
    const [row]: { id: string; email: string; workspace_id: string | null }[] = await this.db.query(
      `SELECT id, email, workspace_id FROM dashboard_sign_ins
        WHERE flow_hash = $1 AND verified_at IS NOT NULL AND used_at IS NULL AND expires_at > now()`,
      [hashSecret(flow)],
    );
    return row ? { id: row.id, email: row.email, workspaceId: row.workspace_id } : null;
  }

  /** Uses up a verified sign-in, for the session made from it: true the first time only. */
  async use(id: string): Promise<boolean> {
    const used = await updateReturning<{ id: string }>(
      this.db,
      `UPDATE dashboard_sign_ins SET used_at = now()
        WHERE id = $1 AND verified_at IS NOT NULL AND used_at IS NULL AND expires_at > now() RETURNING id`,
      [id],
    );
    return used.length > 0;
  }

  private async verify(id: string, also?: string): Promise<DashboardClaim | null> {
    const [row] = await updateReturning<{ id: string; email: string; workspace_id: string | null }>(
      this.db,
      `UPDATE dashboard_sign_ins SET verified_at = now()${also ? `, ${also}` : ''}
        WHERE id = $1 AND verified_at IS NULL AND expires_at > now() RETURNING id, email, workspace_id`,
      [id],
    );
    return row ? { id: row.id, email: row.email, workspaceId: row.workspace_id } : null;
  }

  private async whyNot(where: 'flow_hash = $1' | 'id = $1', key: unknown): Promise<SignInProblem> {
    const [row]: { used: boolean; expired: boolean }[] = await this.db.query(
      `SELECT verified_at IS NOT NULL AS used, expires_at <= now() AS expired FROM dashboard_sign_ins WHERE ${where}`,
      [key],
    );
    if (!row) return 'That code is not right, or it is not for this browser. Ask for a new code.';
    if (row.used) return 'This code or link was used already. Ask for a new one.';
    if (row.expired) return 'This code or link has expired: they work for 15 minutes. Ask for a new one.';
    return 'Too many wrong codes were tried. Ask for a new code.';
  }
}
