import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { readRows } from '../../database/queries';
import type { PersonKind } from '../../workspaces/person.entity';

export type SessionKind = 'visitor' | 'member';

/** How long a session lives from its last use: a visitor's 30 days, a member's 12 hours. */
export const SESSION_LIFETIME_MS: Record<SessionKind, number> = {
  visitor: 30 * 24 * 60 * 60 * 1000,
  member: 12 * 60 * 60 * 1000,
};
/** Use is written down at most this often, not on every request. */
const TOUCH_EVERY_MS = 5 * 60 * 1000;

/** A signed-in person, as a page needs them. */
export interface Session {
  workspaceId: string;
  id: string;
  kind: SessionKind;
  personId: string;
  name: string;
  email: string | null;
  /** A session's own token, to bind form tokens to (never shown). */
  token: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `<workspace id>.<session id>.<secret>`: the cookie's value. */
export function parseToken(token: string | undefined): { workspaceId: string; id: string; secret: string } | null {
  const [workspaceId, id, secret, ...rest] = (token ?? '').split('.');
  if (rest.length > 0 || !UUID.test(workspaceId ?? '') || !UUID.test(id ?? '') || !/^[A-Za-z0-9_-]{43}$/.test(secret ?? '')) {
    return null;
  }
  return { workspaceId, id, secret };
}

export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest();
export const newSecret = () => randomBytes(32).toString('base64url');

/**
 * Sessions in PostgreSQL: revocable, a new one at every sign-in, looked up with the person they
 * belong to on every request (so a removed member or a deleted session loses access at once).
 * Only a hash of each session's secret is stored.
 */
@Injectable()
export class SessionsService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Starts a session for a person; answers its token, for the cookie, and when it ends. */
  async start(
    workspaceId: string,
    kind: SessionKind,
    personId: string,
    manager: Pick<EntityManager, 'query'> = this.db,
  ): Promise<{ token: string; expiresAt: Date }> {
    const secret = newSecret();
    const [row]: { id: string; expires_at: Date }[] = await manager.query(
      `INSERT INTO sessions (workspace_id, kind, person_id, secret_hash, expires_at)
       VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond') RETURNING id, expires_at`,
      [workspaceId, kind, personId, hashSecret(secret), SESSION_LIFETIME_MS[kind]],
    );
    return { token: `${workspaceId}.${row.id}.${secret}`, expiresAt: row.expires_at };
  }

  /**
   * The live session a token names, with its person; null for anything else (unknown, ended,
   * expired, of another kind, or a member session whose person is no longer a member).
   * Extends the session at most every few minutes.
   */
  async find(kind: SessionKind, token: string | undefined): Promise<Session | null> {
    const parsed = parseToken(token);
    if (!parsed) return null;
    const rows = await readRows<{ secret_hash: Buffer; person_id: string; name: string; email: string | null; person_kind: PersonKind; stale: boolean }>(
      this.db,
      `SELECT s.secret_hash, s.person_id, p.name, p.email, p.kind AS person_kind,
              s.last_used_at < now() - $4 * interval '1 millisecond' AS stale
         FROM sessions s JOIN people p ON p.workspace_id = s.workspace_id AND p.id = s.person_id
        WHERE s.workspace_id = $1 AND s.id = $2 AND s.kind = $3 AND s.expires_at > now()`,
      [parsed.workspaceId, parsed.id, kind, TOUCH_EVERY_MS],
    );
    const row = rows[0];
    if (!row || !timingSafeEqual(row.secret_hash, hashSecret(parsed.secret))) return null;
    if (kind === 'member' && row.person_kind !== 'member') return null;
    if (row.stale) {
      await this.db.query(
        `UPDATE sessions SET last_used_at = now(), expires_at = now() + $3 * interval '1 millisecond' WHERE workspace_id = $1 AND id = $2`,
        [parsed.workspaceId, parsed.id, SESSION_LIFETIME_MS[kind]],
      );
    }
    return {
      workspaceId: parsed.workspaceId,
      id: parsed.id,
      kind,
      personId: row.person_id,
      name: row.name,
      email: row.email,
      token: token!,
    };
  }

  /** Ends the session a token names (signing out); nothing for a token that names none. */
  async end(token: string | undefined): Promise<void> {
    const parsed = parseToken(token);
    if (!parsed) return;
    await this.db.query(`DELETE FROM sessions WHERE workspace_id = $1 AND id = $2 AND secret_hash = $3`, [
      parsed.workspaceId,
      parsed.id,
      hashSecret(parsed.secret),
    ]);
  }

  /** Ends every session of a person (a member removed). */
  async endAll(workspaceId: string, personId: string, manager: Pick<EntityManager, 'query'> = this.db): Promise<void> {
    await manager.query(`DELETE FROM sessions WHERE workspace_id = $1 AND person_id = $2`, [workspaceId, personId]);
  }

  /** Sessions, sign-in codes and used SSO tokens past their end are never found; this only keeps the tables small (hourly). */
  async purgeExpired(): Promise<void> {
    await this.db.query(`DELETE FROM sessions WHERE expires_at <= now()`);
    await this.db.query(`DELETE FROM sso_token_uses WHERE expires_at <= now()`);
    // Codes and dashboard sign-ins a day past their end: until then one is told as expired, not unknown.
    await this.db.query(`DELETE FROM sign_in_codes WHERE expires_at <= now() - interval '1 day'`);
    await this.db.query(`DELETE FROM dashboard_sign_ins WHERE expires_at <= now() - interval '1 day'`);
  }
}
