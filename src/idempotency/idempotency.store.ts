import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Database, statement } from '../database/sql';

/** How long a stored answer is replayed, counted from the first request. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long a key stays "in flight" without an answer: longer than any request takes (the
 * slowest, an endpoint test, is bounded by WEBHOOK_TIMEOUT_MS). A process that dies mid-request
 * frees its keys after this.
 */
export const IN_FLIGHT_LEASE_MS = 2 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;

const SQL = {
  // "Now" in the conflict's clauses is EXCLUDED.created_at (now() by default): Citus takes only
  // immutable functions there.
  claim: statement(
    'idem_claim',
    `INSERT INTO idempotency_keys (workspace_id, key, request_hash, state, owner, locked_until, expires_at)
     VALUES ($1, $2, $3, 'in_flight', $4, now() + $5 * interval '1 millisecond', now() + $6 * interval '1 millisecond')
     ON CONFLICT (workspace_id, key) DO UPDATE
        SET request_hash = EXCLUDED.request_hash, state = 'in_flight', owner = EXCLUDED.owner,
            locked_until = EXCLUDED.locked_until, status_code = NULL, response_body = NULL,
            created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
      WHERE idempotency_keys.expires_at <= EXCLUDED.created_at
         OR (idempotency_keys.state = 'in_flight' AND idempotency_keys.locked_until <= EXCLUDED.created_at
             AND idempotency_keys.request_hash = EXCLUDED.request_hash)
     RETURNING owner`,
  ),
  read: statement('idem_read', `SELECT request_hash, state, status_code, response_body FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`),
  complete: statement(
    'idem_complete',
    `UPDATE idempotency_keys SET state = 'completed', status_code = $4, response_body = $5, locked_until = NULL
      WHERE workspace_id = $1 AND key = $2 AND owner = $3`,
  ),
  release: statement('idem_release', `DELETE FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND owner = $3`),
  purge: statement(
    'idem_purge',
    `DELETE FROM idempotency_keys WHERE (workspace_id, key) IN
       (SELECT workspace_id, key FROM idempotency_keys WHERE expires_at <= now() LIMIT 10000)`,
  ),
  purgeEverywhere: statement('idem_purge_all', `DELETE FROM idempotency_keys WHERE expires_at <= now()`),
};

/** What a claim found: the key is now ours to run under, or an earlier request's fate. */
export type Claim =
  | { kind: 'owned'; workspaceId: string; key: string; owner: string }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'in_flight' }
  | { kind: 'different_request' };

/**
 * Idempotency keys in PostgreSQL, so that every API instance sees the same ones. The primary
 * key (workspace, key) makes two requests racing for one key meet at the INSERT: exactly one
 * runs, the other sees it in flight.
 */
@Injectable()
export class IdempotencyStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Idempotency');
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(protected readonly db: Database) {}

  onModuleInit(): void {
    this.purgeTimer = setInterval(() => {
      this.purgeExpired().catch((error: Error) => this.logger.warn(`Could not purge expired keys: ${error.message}`));
    }, PURGE_EVERY_MS);
    this.purgeTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }

  /**
   * Takes the key for this request, or says why not. An expired key is free again; so is one
   * left in flight past its lease by the same request (its process died before answering).
   */
  async claim(workspaceId: string, key: string, requestHash: string): Promise<Claim> {
    // "Now" in the conflict's clauses is EXCLUDED.created_at (now() by default): Citus takes
    // only immutable functions there.
    for (let tries = 0; tries < 3; tries++) {
      const owner = randomUUID();
      const taken = await this.db.rows<{ owner: string }>(SQL.claim, [workspaceId, key, requestHash, owner, IN_FLIGHT_LEASE_MS, IDEMPOTENCY_TTL_MS]);
      if (taken[0]?.owner === owner) return { kind: 'owned', workspaceId, key, owner };
      const [row] = await this.db.rows<{ request_hash: string; state: string; status_code: number | null; response_body: string | null }>(
        SQL.read,
        [workspaceId, key],
      );
      if (!row) continue; // released between the two statements: try to take it again
      if (row.request_hash !== requestHash) return { kind: 'different_request' };
      if (row.state === 'in_flight') return { kind: 'in_flight' };
      return { kind: 'replay', status: row.status_code!, body: JSON.parse(row.response_body!) };
    }
    return { kind: 'in_flight' };
  }

  /** Keeps the answer of the request that owns the key, to replay it. */
  async complete(claim: Extract<Claim, { kind: 'owned' }>, status: number, body: unknown): Promise<void> {
    await this.db.count(SQL.complete, [claim.workspaceId, claim.key, claim.owner, status, JSON.stringify(body ?? null)]);
  }

  /** Forgets the key, so that a retry runs again (after a 5xx, or a request refused as invalid). */
  async release(claim: Extract<Claim, { kind: 'owned' }>): Promise<void> {
    await this.db.count(SQL.release, [claim.workspaceId, claim.key, claim.owner]);
  }

  /** Claims treat expired keys as free; this only keeps the table small, 10,000 keys a time. */
  purgeExpired(): Promise<number> {
    return this.db.count(SQL.purge);
  }
}

/** On Citus each shard deletes its own, all in parallel (a LIMIT across shards would gather the keys first). */
@Injectable()
export class CitusIdempotencyStore extends IdempotencyStore {
  override purgeExpired(): Promise<number> {
    return this.db.count(SQL.purgeEverywhere);
  }
}
