import { Injectable } from '@nestjs/common';
import { Database, statement } from '../database/sql';
import type { ApiKeyEntity } from './api-key.entity';

const KEY = `workspace_id AS "workspaceId", id, key_hash AS "keyHash", key_prefix AS "keyPrefix", created_by AS "createdBy",
             created_at AS "createdAt", revoked_at AS "revokedAt"`;

const SQL = {
  create: statement(
    'key_create',
    `INSERT INTO api_keys (workspace_id, key_hash, key_prefix, created_by) VALUES ($1, $2, $3, $4) RETURNING id`,
  ),
  list: statement(
    'key_list',
    `SELECT k.workspace_id AS "workspaceId", k.id, k.key_hash AS "keyHash", k.key_prefix AS "keyPrefix", k.created_by AS "createdBy",
            k.created_at AS "createdAt", k.revoked_at AS "revokedAt", p.name AS creator, u.last_used_at AS "lastUsedAt"
       FROM api_keys k
       JOIN people p ON p.workspace_id = k.workspace_id AND p.id = k.created_by
       LEFT JOIN api_key_uses u ON u.workspace_id = k.workspace_id AND u.key_id = k.id
      WHERE k.workspace_id = $1 ORDER BY k.created_at, k.id`,
  ),
  byId: statement('key_by_id', `SELECT ${KEY} FROM api_keys WHERE id = $1`),
  revoke: statement('key_revoke', `UPDATE api_keys SET revoked_at = now() WHERE workspace_id = $1 AND id = $2 AND revoked_at IS NULL`),
  use: statement(
    'key_use',
    `INSERT INTO api_key_uses (workspace_id, key_id, last_used_at) VALUES ($1, $2, now())
     ON CONFLICT (workspace_id, key_id) DO UPDATE SET last_used_at = EXCLUDED.last_used_at`,
  ),
  caller: statement(
    'key_caller',
    `SELECT k.id AS key_id, k.created_by, w.id AS workspace_id, w.slug, w.plan
       FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
  ),
};

export interface CallerRow {
  key_id: string;
  created_by: string;
  workspace_id: string;
  slug: string;
  plan: string;
}

/** The api_keys and api_key_uses tables. Keys are stored only as a hash. */
@Injectable()
export class ApiKeysStore {
  constructor(private readonly db: Database) {}

  async create(key: { workspaceId: string; keyHash: string; keyPrefix: string; createdBy: string }): Promise<string> {
    const [row] = await this.db.rows<{ id: string }>(SQL.create, [key.workspaceId, key.keyHash, key.keyPrefix, key.createdBy]);
    return row.id;
  }

  /** The workspace's keys, oldest first, with their creator's name and when they were last used. */
  list(workspaceId: string): Promise<(ApiKeyEntity & { creator: string; lastUsedAt: Date | null })[]> {
    return this.db.rows(SQL.list, [workspaceId]);
  }

  async byId(id: string): Promise<ApiKeyEntity | undefined> {
    return (await this.db.rows<ApiKeyEntity>(SQL.byId, [id]))[0];
  }

  /** Revokes a key; false when it was revoked already. */
  async revoke(workspaceId: string, id: string): Promise<boolean> {
    return (await this.db.count(SQL.revoke, [workspaceId, id])) > 0;
  }

  async noteUse(workspaceId: string, keyId: string): Promise<void> {
    await this.db.count(SQL.use, [workspaceId, keyId]);
  }

  async caller(keyHash: string): Promise<CallerRow | undefined> {
    return (await this.db.rows<CallerRow>(SQL.caller, [keyHash]))[0];
  }
}
