import { Injectable } from '@nestjs/common';
import { Database, Queryable, statement, Tx } from '../../database/sql';
import type { PersonKind } from '../../workspaces/person.entity';

export type SessionKind = 'visitor' | 'member';

/** A session as its token's lookup finds it, with its person. */
export interface SessionRow {
  secret_hash: Buffer;
  person_id: string;
  name: string;
  email: string | null;
  person_kind: PersonKind;
  /** Last used longer ago than the lookup's touch interval: its use is to be written down. */
  stale: boolean;
}

/** Who a used code or link signs in. */
export interface SignInClaim {
  kind: SessionKind;
  email: string;
  name: string | null;
}

/** What a sign-in (a code, a link, a dashboard sign-in) has become, to say why it does not sign in. */
export interface SignInState {
  used: boolean;
  expired: boolean;
  failed_attempts: number;
}

/** A dashboard sign-in as the dashboard's steps read it. */
export interface DashboardSignInRow {
  id: string;
  email: string;
  workspace_id: string | null;
}

/** Part of a sign-in's row that a wrong code counted: its stored code, and the tries so far. */
export interface CodeTry {
  code_hash: Buffer | null;
  failed_attempts: number;
}

/**
 * The page sessions' tables: `sessions` (a signed-in visitor or member), `sign_in_codes` (a
 * public site's emailed codes and links) and `dashboard_sign_ins` (the dashboard's). Every write
 * of them is here. Secrets, codes and links arrive hashed; lifetimes in milliseconds.
 */
@Injectable()
export class SessionsStore {
  private static readonly START = statement(
    'session_start',
    `INSERT INTO sessions (workspace_id, kind, person_id, secret_hash, expires_at)
     VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond') RETURNING id, expires_at`,
  );
  private static readonly FIND = statement(
    'session_find',
    `SELECT s.secret_hash, s.person_id, p.name, p.email, p.kind AS person_kind,
            s.last_used_at < now() - $4 * interval '1 millisecond' AS stale
       FROM sessions s JOIN people p ON p.workspace_id = s.workspace_id AND p.id = s.person_id
      WHERE s.workspace_id = $1 AND s.id = $2 AND s.kind = $3 AND s.expires_at > now() AND p.blocked_at IS NULL`,
  );
  private static readonly TOUCH = statement(
    'session_touch',
    `UPDATE sessions SET last_used_at = now(), expires_at = now() + $3 * interval '1 millisecond' WHERE workspace_id = $1 AND id = $2`,
  );
  private static readonly END = statement('session_end', `DELETE FROM sessions WHERE workspace_id = $1 AND id = $2 AND secret_hash = $3`);
  private static readonly END_ALL = statement('session_end_all', `DELETE FROM sessions WHERE workspace_id = $1 AND person_id = $2`);

  private static readonly CODE_ADD = statement(
    'sign_in_code_add',
    `INSERT INTO sign_in_codes (workspace_id, id, kind, email, name, code_hash, link_hash, flow_hash, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + $9 * interval '1 millisecond')`,
  );
  private static readonly CODE_PENDING_EMAIL = statement(
    'sign_in_code_pending_email',
    `SELECT email FROM sign_in_codes WHERE workspace_id = $1 AND kind = $2 AND flow_hash = $3 AND expires_at > now()
      ORDER BY created_at DESC LIMIT 1`,
  );
  private static readonly CODE_LATEST = statement(
    'sign_in_code_latest',
    `SELECT id FROM sign_in_codes WHERE workspace_id = $1 AND kind = $2 AND flow_hash = $3 ORDER BY created_at DESC LIMIT 1`,
  );
  private static readonly CODE_TRY = statement(
    'sign_in_code_try',
    `UPDATE sign_in_codes SET failed_attempts = failed_attempts + 1
      WHERE workspace_id = $1 AND id = $2 AND used_at IS NULL AND expires_at > now() AND failed_attempts < $3
      RETURNING code_hash, failed_attempts`,
  );
  private static readonly CODE_LINK_OK = statement(
    'sign_in_code_link_ok',
    `SELECT used_at IS NULL AND expires_at > now() AS ok FROM sign_in_codes
      WHERE workspace_id = $1 AND id = $2 AND kind = $3 AND link_hash = $4`,
  );
  private static readonly CODE_USE = statement(
    'sign_in_code_use',
    `UPDATE sign_in_codes SET used_at = now(), failed_attempts = failed_attempts - $3
      WHERE workspace_id = $1 AND id = $2 AND used_at IS NULL AND expires_at > now()
      RETURNING kind, email, name`,
  );
  private static readonly CODE_STATE = statement(
    'sign_in_code_state',
    `SELECT used_at IS NOT NULL AS used, expires_at <= now() AS expired, failed_attempts FROM sign_in_codes WHERE workspace_id = $1 AND id = $2`,
  );
  private static readonly CODE_ADD_LINK = statement(
    'sign_in_code_add_link',
    `INSERT INTO sign_in_codes (workspace_id, id, kind, email, link_hash, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + $6 * interval '1 millisecond')`,
  );

  private static readonly DASHBOARD_ASK = statement(
    'dashboard_sign_in_ask',
    `INSERT INTO dashboard_sign_ins (flow_hash, email, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond') RETURNING id`,
  );
  private static readonly DASHBOARD_UNHANDLED = statement(
    'dashboard_sign_in_unhandled',
    `SELECT email FROM dashboard_sign_ins WHERE id = $1 AND handled_at IS NULL`,
  );
  private static readonly DASHBOARD_HANDLED = statement('dashboard_sign_in_handled', `UPDATE dashboard_sign_ins SET handled_at = now() WHERE id = $1`);
  private static readonly DASHBOARD_HAND_OUT = statement(
    'dashboard_sign_in_hand_out',
    `UPDATE dashboard_sign_ins SET workspace_id = $2, code_hash = $3, link_hash = $4, handled_at = now() WHERE id = $1`,
  );
  private static readonly DASHBOARD_TRY = statement(
    'dashboard_sign_in_try',
    `UPDATE dashboard_sign_ins SET failed_attempts = failed_attempts + 1
      WHERE flow_hash = $1 AND verified_at IS NULL AND expires_at > now() AND failed_attempts < $2
      RETURNING id, code_hash, failed_attempts`,
  );
  private static readonly DASHBOARD_LINK_OK = statement(
    'dashboard_sign_in_link_ok',
    `SELECT verified_at IS NULL AND expires_at > now() AS ok FROM dashboard_sign_ins WHERE id = $1 AND link_hash = $2`,
  );
  private static readonly DASHBOARD_VERIFIED = statement(
    'dashboard_sign_in_verified',
    `SELECT id, email, workspace_id FROM dashboard_sign_ins
      WHERE flow_hash = $1 AND verified_at IS NOT NULL AND used_at IS NULL AND expires_at > now()`,
  );
  private static readonly DASHBOARD_USE = statement(
    'dashboard_sign_in_use',
    `UPDATE dashboard_sign_ins SET used_at = now()
      WHERE id = $1 AND verified_at IS NOT NULL AND used_at IS NULL AND expires_at > now() RETURNING id`,
  );
  private static readonly DASHBOARD_VERIFY = statement(
    'dashboard_sign_in_verify',
    `UPDATE dashboard_sign_ins SET verified_at = now(), failed_attempts = failed_attempts - $2
      WHERE id = $1 AND verified_at IS NULL AND expires_at > now() RETURNING id, email, workspace_id`,
  );
  private static readonly DASHBOARD_STATE_BY_ID = statement(
    'dashboard_sign_in_state',
    `SELECT verified_at IS NOT NULL AS used, expires_at <= now() AS expired, failed_attempts FROM dashboard_sign_ins WHERE id = $1`,
  );
  private static readonly DASHBOARD_STATE_BY_FLOW = statement(
    'dashboard_sign_in_state_by_flow',
    `SELECT verified_at IS NOT NULL AS used, expires_at <= now() AS expired, failed_attempts FROM dashboard_sign_ins WHERE flow_hash = $1`,
  );
  private static readonly DASHBOARD_ADD_LINK = statement(
    'dashboard_sign_in_add_link',
    `INSERT INTO dashboard_sign_ins (id, email, workspace_id, link_hash, handled_at, expires_at)
     VALUES ($1, $2, $3, $4, now(), now() + $5 * interval '1 millisecond')`,
  );

  private static readonly PURGE_SESSIONS = `DELETE FROM sessions WHERE expires_at <= now()`;
  // Codes and dashboard sign-ins a day past their end: until then one is told as expired, not unknown.
  private static readonly PURGE_CODES = `DELETE FROM sign_in_codes WHERE expires_at <= now() - interval '1 day'`;
  private static readonly PURGE_DASHBOARD = `DELETE FROM dashboard_sign_ins WHERE expires_at <= now() - interval '1 day'`;

  constructor(private readonly db: Database) {}

  // Sessions

  async startSession(
    workspaceId: string,
    kind: SessionKind,
    personId: string,
    secretHash: Buffer,
    lifetimeMs: number,
  ): Promise<{ id: string; expiresAt: Date }> {
    const [row] = await this.db.rows<{ id: string; expires_at: Date }>(SessionsStore.START, [workspaceId, kind, personId, secretHash, lifetimeMs]);
    return { id: row.id, expiresAt: row.expires_at };
  }

  /** The live session of this id and kind, with its person (whatever its secret: the caller compares). */
  async findSession(workspaceId: string, id: string, kind: SessionKind, touchEveryMs: number): Promise<SessionRow | undefined> {
    const [row] = await this.db.rows<SessionRow>(SessionsStore.FIND, [workspaceId, id, kind, touchEveryMs]);
    return row;
  }

  /** Writes down a session's use: it lives `lifetimeMs` from now. */
  async touchSession(workspaceId: string, id: string, lifetimeMs: number): Promise<void> {
    await this.db.count(SessionsStore.TOUCH, [workspaceId, id, lifetimeMs]);
  }

  async endSession(workspaceId: string, id: string, secretHash: Buffer): Promise<void> {
    await this.db.count(SessionsStore.END, [workspaceId, id, secretHash]);
  }

  /** Ends every session of a person, with the transaction `tx` (it fails with it). */
  endSessionsOf(tx: Tx, workspaceId: string, personId: string): void {
    tx.send(SessionsStore.END_ALL, [workspaceId, personId]);
  }

  /** Forgets sessions past their end, and codes and dashboard sign-ins a day past theirs. */
  async purgeExpired(): Promise<void> {
    await this.db.count(SessionsStore.PURGE_SESSIONS);
    await this.db.count(SessionsStore.PURGE_CODES);
    await this.db.count(SessionsStore.PURGE_DASHBOARD);
  }

  // A public site's codes and links (sign_in_codes)

  addCode(
    q: Queryable,
    code: { workspaceId: string; id: string; kind: SessionKind; email: string; name: string | null; codeHash: Buffer; linkHash: Buffer; flowHash: Buffer },
    lifetimeMs: number,
  ): Promise<number> {
    return q.count(SessionsStore.CODE_ADD, [code.workspaceId, code.id, code.kind, code.email, code.name, code.codeHash, code.linkHash, code.flowHash, lifetimeMs]);
  }

  /** A link with no code (the CLI's, the tests'). */
  async addLink(link: { workspaceId: string; id: string; kind: SessionKind; email: string; linkHash: Buffer }, lifetimeMs: number): Promise<void> {
    await this.db.count(SessionsStore.CODE_ADD_LINK, [link.workspaceId, link.id, link.kind, link.email, link.linkHash, lifetimeMs]);
  }

  /** The address of the latest live code of a browser's sign-in (its flow's hash). */
  async pendingEmail(workspaceId: string, kind: SessionKind, flowHash: Buffer): Promise<string | null> {
    const [row] = await this.db.rows<{ email: string }>(SessionsStore.CODE_PENDING_EMAIL, [workspaceId, kind, flowHash]);
    return row?.email ?? null;
  }

  /** The latest code of a browser's sign-in, live or not. */
  async latestCode(workspaceId: string, kind: SessionKind, flowHash: Buffer): Promise<string | null> {
    const [row] = await this.db.rows<{ id: string }>(SessionsStore.CODE_LATEST, [workspaceId, kind, flowHash]);
    return row?.id ?? null;
  }

  /** Counts a try of a live code with fewer than `maxTries` wrong ones: its hash and the tries, or nothing. */
  async tryCode(workspaceId: string, id: string, maxTries: number): Promise<CodeTry | undefined> {
    const [row] = await this.db.rows<CodeTry>(SessionsStore.CODE_TRY, [workspaceId, id, maxTries]);
    return row;
  }

  /** Whether a link is live: undefined for no such link, else `ok`. */
  async codeLinkLive(workspaceId: string, id: string, kind: SessionKind, linkHash: Buffer): Promise<boolean | undefined> {
    const [row] = await this.db.rows<{ ok: boolean }>(SessionsStore.CODE_LINK_OK, [workspaceId, id, kind, linkHash]);
    return row?.ok;
  }

  /** Uses up a live code or link (a right code takes back the try counted for it: `refundTry`). */
  async useCode(workspaceId: string, id: string, refundTry: boolean): Promise<SignInClaim | null> {
    const [row] = await this.db.rows<SignInClaim>(SessionsStore.CODE_USE, [workspaceId, id, refundTry ? 1 : 0]);
    return row ?? null;
  }

  async codeState(workspaceId: string, id: string): Promise<SignInState | undefined> {
    const [row] = await this.db.rows<SignInState>(SessionsStore.CODE_STATE, [workspaceId, id]);
    return row;
  }

  // The dashboard's sign-ins (dashboard_sign_ins)

  async askDashboard(flowHash: Buffer, email: string, lifetimeMs: number): Promise<string> {
    const [row] = await this.db.rows<{ id: string }>(SessionsStore.DASHBOARD_ASK, [flowHash, email, lifetimeMs]);
    return row.id;
  }

  /** The address of a dashboard sign-in not yet looked after. */
  async unhandledDashboard(id: string): Promise<string | null> {
    const [row] = await this.db.rows<{ email: string }>(SessionsStore.DASHBOARD_UNHANDLED, [id]);
    return row?.email ?? null;
  }

  /** A sign-in looked after with nothing to send (no member's address). */
  async dashboardHandled(id: string): Promise<void> {
    await this.db.count(SessionsStore.DASHBOARD_HANDLED, [id]);
  }

  /** A sign-in looked after with a code and a link, for a workspace. */
  handOutDashboard(tx: Tx, id: string, workspaceId: string, codeHash: Buffer, linkHash: Buffer): Promise<number> {
    return tx.count(SessionsStore.DASHBOARD_HAND_OUT, [id, workspaceId, codeHash, linkHash]);
  }

  /** Counts a try of a browser's unverified, live sign-in with fewer than `maxTries` wrong ones. */
  async tryDashboardCode(flowHash: Buffer, maxTries: number): Promise<(CodeTry & { id: string }) | undefined> {
    const [row] = await this.db.rows<CodeTry & { id: string }>(SessionsStore.DASHBOARD_TRY, [flowHash, maxTries]);
    return row;
  }

  async dashboardLinkLive(id: string, linkHash: Buffer): Promise<boolean | undefined> {
    const [row] = await this.db.rows<{ ok: boolean }>(SessionsStore.DASHBOARD_LINK_OK, [id, linkHash]);
    return row?.ok;
  }

  /** A browser's verified, unused, live sign-in. */
  async verifiedDashboard(flowHash: Buffer): Promise<DashboardSignInRow | undefined> {
    const [row] = await this.db.rows<DashboardSignInRow>(SessionsStore.DASHBOARD_VERIFIED, [flowHash]);
    return row;
  }

  /** Uses up a verified sign-in: true the first time only. */
  async useDashboard(id: string): Promise<boolean> {
    return (await this.db.rows(SessionsStore.DASHBOARD_USE, [id])).length > 0;
  }

  /** Verifies a live sign-in (a right code takes back the try counted for it: `refundTry`). */
  async verifyDashboard(id: string, refundTry: boolean): Promise<DashboardSignInRow | undefined> {
    const [row] = await this.db.rows<DashboardSignInRow>(SessionsStore.DASHBOARD_VERIFY, [id, refundTry ? 1 : 0]);
    return row;
  }

  async dashboardState(by: { id: string } | { flowHash: Buffer }): Promise<SignInState | undefined> {
    const [row] = await ('id' in by
      ? this.db.rows<SignInState>(SessionsStore.DASHBOARD_STATE_BY_ID, [by.id])
      : this.db.rows<SignInState>(SessionsStore.DASHBOARD_STATE_BY_FLOW, [by.flowHash]));
    return row;
  }

  /** A link to a workspace's dashboard with no code (the CLI's `member sign-in-link`). */
  async addDashboardLink(link: { id: string; email: string; workspaceId: string; linkHash: Buffer }, lifetimeMs: number): Promise<void> {
    await this.db.count(SessionsStore.DASHBOARD_ADD_LINK, [link.id, link.email, link.workspaceId, link.linkHash, lifetimeMs]);
  }
}
