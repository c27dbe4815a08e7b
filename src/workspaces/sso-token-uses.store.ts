import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Database, statement } from '../database/sql';

/** What names a token once used: its `jti` if it has one (any token with that id is the same sign-in), else the token. */
export function tokenUseKey(token: string, jti: unknown): Buffer {
  const name = typeof jti === 'string' && jti !== '' ? `jti:${jti}` : `jwt:${token}`;
  return createHash('sha256').update(name).digest();
}

const TAKE = statement(
  'sso_token_take',
  `INSERT INTO sso_token_uses (workspace_id, token_hash, expires_at) VALUES ($1, $2, $3)
   ON CONFLICT (workspace_id, token_hash) DO NOTHING RETURNING 1`,
);

const PURGE = `DELETE FROM sso_token_uses WHERE expires_at <= now()`;

/**
 * The SSO tokens that have signed someone in, per workspace, until they expire (sso_token_uses):
 * in PostgreSQL, so that every instance refuses a token another has taken.
 */
@Injectable()
export class SsoTokenUses {
  constructor(private readonly db: Database) {}

  /**
   * Takes a token for a sign-in: true the first time, false if it (or its jti) was taken before.
   * `expiresAt` is when the token stops being accepted anyway; until then it is remembered.
   */
  async take(workspaceId: string, key: Buffer, expiresAt: Date): Promise<boolean> {
    return (await this.db.rows(TAKE, [workspaceId, key, expiresAt])).length > 0;
  }

  /** Forgets tokens past their end (they are refused for their `exp` anyway): only keeps the table small. */
  async purgeExpired(): Promise<void> {
    await this.db.count(PURGE);
  }
}
