import { randomInt, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { normalEmail } from '../../common/email-address';
import { SecretBox } from '../../common/secret-box';
import { Database } from '../../database/sql';
import { SIGN_IN_LIFETIME_MS, signInEmail } from '../../notifications/sign-in-email';
import { WorkspacesService } from '../../workspaces/workspaces.service';
import { hashSecret, newSecret } from '../shared/sessions.service';
import { DashboardSignInRow, SessionsStore } from '../shared/sessions.store';
import { MAX_WRONG_CODES, parseLink, SignInProblem, SignInService, spent, wrongCode } from '../shared/sign-in.service';

/** A sign-in whose code or link was right: whose it is, and where a link signs in. */
export interface DashboardClaim {
  id: string;
  email: string;
  workspaceId: string | null;
}

/** What a stranger's code is compared with: a MAC no code can have (the member's and the stranger's checks are the same work). */
const NO_CODE = Buffer.alloc(32);

const codeMac = (box: SecretBox, id: string, code: string) => box.mac(`${id}:${code}`, 'dashboard-sign-in-code');

const claimOf = (row: DashboardSignInRow | undefined): DashboardClaim | null =>
  row ? { id: row.id, email: row.email, workspaceId: row.workspace_id } : null;

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
    private readonly db: Database,
    private readonly store: SessionsStore,
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
    const id = await this.store.askDashboard(hashSecret(flow), normal, SIGN_IN_LIFETIME_MS);
    return { id, flow };
  }

  /**
   * Looks after a sign-in once its answer is out: a member's address gets a code and a link
   * (`link(token)` makes its address), named after the first of their workspaces; any other
   * address gets nothing.
   */
  async deliver(id: string, link: (token: string) => string): Promise<void> {
    const email = await this.store.unhandledDashboard(id);
    if (email === null) return;
    const [first] = await this.workspaces.memberships(email);
    if (!first) {
      await this.store.dashboardHandled(id);
      return;
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const linkSecret = newSecret();
    await this.db.transaction(async (tx) => {
      await this.store.handOutDashboard(tx, id, first.workspace.id, codeMac(this.box, id, code), hashSecret(linkSecret));
      const message = signInEmail({ to: email, place: first.workspace.name, code, link: link(`${id}.${linkSecret}`), dashboard: true });
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
    const tried = await this.store.tryDashboardCode(hashSecret(flow), MAX_WRONG_CODES);
    if (!tried) return this.whyNot({ flowHash: hashSecret(flow) });
    const expected = tried.code_hash ?? NO_CODE;
    const given = codeMac(this.box, tried.id, /^\d{6}$/.test(digits) ? digits : 'none');
    if (!(timingSafeEqual(given, expected) && tried.code_hash !== null && /^\d{6}$/.test(digits))) {
      return wrongCode(MAX_WRONG_CODES - tried.failed_attempts);
    }
    return claimOf(await this.store.verifyDashboard(tried.id, true)) ?? this.whyNot({ id: tried.id });
  }

  /** Whether a link's token is still good (shown before its "Sign in" button): null if so, else why not. */
  async checkLink(token: string): Promise<SignInProblem | null> {
    const parsed = parseLink(token);
    if (!parsed) return 'This sign-in link is not valid.';
    const ok = await this.store.dashboardLinkLive(parsed.id, hashSecret(parsed.secret));
    if (ok === undefined) return 'This sign-in link is not valid.';
    return ok ? null : this.whyNot({ id: parsed.id });
  }

  /** Uses a link: the claim (the workspace it signs in to), or why not. */
  async useLink(token: string): Promise<DashboardClaim | SignInProblem> {
    const problem = await this.checkLink(token);
    if (problem) return problem;
    const { id } = parseLink(token)!;
    return claimOf(await this.store.verifyDashboard(id, false)) ?? this.whyNot({ id });
  }

  /** The verified, unused sign-in of this browser (a member of several workspaces, choosing one), if any. */
  async verified(flow: string): Promise<DashboardClaim | null> {
    return claimOf(await this.store.verifiedDashboard(hashSecret(flow)));
  }

  /** Uses up a verified sign-in, for the session made from it: true the first time only. */
  use(id: string): Promise<boolean> {
    return this.store.useDashboard(id);
  }

  private async whyNot(by: { id: string } | { flowHash: Buffer }): Promise<SignInProblem> {
    const state = await this.store.dashboardState(by);
    return state ? spent(state) : 'That code is not right, or it is not for this browser. Ask for a new code.';
  }
}
