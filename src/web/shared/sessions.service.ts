import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Tx } from '../../database/sql';
import { SsoService } from '../../workspaces/sso.service';
import { SessionKind, SessionsStore } from './sessions.store';

export type { SessionKind } from './sessions.store';

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
const SECRET = /^[A-Za-z0-9_-]{43}$/;

/** A secret as newSecret makes it (a session's, a sign-in cookie's, a link's): 32 random bytes, base64url. */
export const isSecret = (value: string | undefined): value is string => SECRET.test(value ?? '');

/** `<workspace id>.<session id>.<secret>`: the cookie's value. */
export function parseToken(token: string | undefined): { workspaceId: string; id: string; secret: string } | null {
  const [workspaceId, id, secret, ...rest] = (token ?? '').split('.');
  if (rest.length > 0 || !UUID.test(workspaceId ?? '') || !UUID.test(id ?? '') || !isSecret(secret)) {
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
  constructor(
    private readonly store: SessionsStore,
    private readonly sso: SsoService,
  ) {}

  /** Starts a session for a person; answers its token, for the cookie, and when it ends. */
  async start(workspaceId: string, kind: SessionKind, personId: string): Promise<{ token: string; expiresAt: Date }> {
    const secret = newSecret();
    const { id, expiresAt } = await this.store.startSession(workspaceId, kind, personId, hashSecret(secret), SESSION_LIFETIME_MS[kind]);
    return { token: `${workspaceId}.${id}.${secret}`, expiresAt };
  }

  /**
   * The live session a token names, with its person; null for anything else (unknown, ended,
   * expired, of another kind, a member session whose person is no longer a member, or a blocked
   * person's: blocking ends their sessions, and one started while they were being blocked is
   * found by no request either).
   * Extends the session at most every few minutes.
   */
  async find(kind: SessionKind, token: string | undefined): Promise<Session | null> {
    const parsed = parseToken(token);
    if (!parsed) return null;
    const row = await this.store.findSession(parsed.workspaceId, parsed.id, kind, TOUCH_EVERY_MS);
    if (!row || !timingSafeEqual(row.secret_hash, hashSecret(parsed.secret))) return null;
    if (kind === 'member' && row.person_kind !== 'member') return null;
    if (row.stale) await this.store.touchSession(parsed.workspaceId, parsed.id, SESSION_LIFETIME_MS[kind]);
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
    await this.store.endSession(parsed.workspaceId, parsed.id, hashSecret(parsed.secret));
  }

  /** Ends every session of a person (a member removed, a person blocked), in the transaction `tx` that does it. */
  endAll(tx: Tx, workspaceId: string, personId: string): void {
    this.store.endSessionsOf(tx, workspaceId, personId);
  }

  /** Sessions, sign-in codes and used SSO tokens past their end are never found; this only keeps the tables small (hourly). */
  async purgeExpired(): Promise<void> {
    await this.store.purgeExpired();
    await this.sso.purgeUsedTokens();
  }
}
