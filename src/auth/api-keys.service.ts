import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { randomBase62 } from '../common/random';
import type { Caller } from '../common/request-context';
import { PLANS, isPlan } from '../workspaces/plans';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { Database } from '../database/sql';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeysStore } from './api-keys.store';
import { announceCallersChange, CallerCache } from './caller-cache';

export const KEY_PREFIX = 'chorus_key_';
const BEARER = /^bearer +(\S+) *$/i;
const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
/** How precisely a key's last use is known: a use is written down at most this often. */
const USE_PRECISION_MS = 5 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class ApiKeysService {
  private readonly logger = new Logger('Keys');

  constructor(
    private readonly db: Database,
    private readonly keys: ApiKeysStore,
    private readonly workspaces: WorkspacesService,
    private readonly callers: CallerCache,
  ) {}

  /** Makes a key for a member (the CLI names them by email); the plain key is returned here and never again. */
  async create(workspaceSlug: string, memberEmail: string): Promise<{ id: string; key: string }> {
    const workspace = await this.workspaces.findBySlug(workspaceSlug);
    const member = await this.workspaces.findMemberByEmail(workspace.id, memberEmail);
    return this.createFor(workspace.id, member.id);
  }

  /** Makes a key whose creator is `memberId` (the dashboard: the member signed in). */
  async createFor(workspaceId: string, memberId: string): Promise<{ id: string; key: string }> {
    const key = KEY_PREFIX + randomBase62(40);
    const id = await this.keys.create({ workspaceId, keyHash: hashKey(key), keyPrefix: key.slice(0, KEY_PREFIX.length + 4), createdBy: memberId });
    return { id, key };
  }

  list(workspaceId: string): Promise<ApiKeyEntity[]> {
    return this.keys.list(workspaceId);
  }

  /** The keys as the dashboard lists them: with their creator's name and when they were last used (to a few minutes). */
  listShown(workspaceId: string): Promise<(ApiKeyEntity & { creator: string; lastUsedAt: Date | null })[]> {
    return this.keys.list(workspaceId);
  }

  /** Revokes a key by id, whatever its workspace (the operator's CLI). */
  async revoke(id: string): Promise<void> {
    const key = UUID.test(id) ? await this.keys.byId(id) : undefined;
    if (!key) throw new AppError('not_found', `No API key with id ${id}.`);
    await this.revokeIn(key.workspaceId, id);
  }

  /** Revokes a key of this workspace; a key of another is not found. At once on every instance. */
  async revokeIn(workspaceId: string, id: string): Promise<void> {
    const key = UUID.test(id) ? await this.keys.byId(id) : undefined;
    if (!key || key.workspaceId !== workspaceId) throw AppError.notFound('API key');
    if (await this.keys.revoke(workspaceId, id)) await announceCallersChange(this.db);
    this.callers.clear(); // other processes hear of it through the database (see CallerCache)
  }

  /**
   * The caller of an `Authorization` header: 401 for a missing, wrong or revoked key, then
   * 403 for a workspace whose plan has no API.
   */
  async authorize(header: string | undefined): Promise<Caller> {
    const token = BEARER.exec(header ?? '')?.[1];
    const caller = token ? await this.authenticate(token) : null;
    if (!caller) {
      throw new AppError(
        'unauthorized',
        token ? 'The API key is wrong or revoked.' : 'Send an API key as "Authorization: Bearer <key>".',
        { 'WWW-Authenticate': 'Bearer realm="chorus"' },
      );
    }
    if (!isPlan(caller.plan) || !PLANS[caller.plan].api) {
      throw new AppError('plan_required', 'The API is available on the Pro plan and above.');
    }
    return caller;
  }

  /** The caller a key stands for, or null for an unknown or revoked key. */
  async authenticate(key: string): Promise<Caller | null> {
    if (!key.startsWith(KEY_PREFIX)) return null;
    const keyHash = hashKey(key);
    const caller = await this.callers.get(keyHash, () => this.lookUp(keyHash));
    if (caller) this.noteUse(caller);
    return caller;
  }

  /** When each key was last used, as this instance last wrote it down. */
  private readonly usesWritten = new Map<string, number>();

  /**
   * Writes down that a key was used, at most every USE_PRECISION_MS per key and instance, beside
   * the request (never in its way): a failure is logged, and the next use writes it again.
   */
  private noteUse(caller: Caller): void {
    const now = Date.now();
    if ((this.usesWritten.get(caller.keyId) ?? 0) > now - USE_PRECISION_MS) return;
    if (this.usesWritten.size >= 10_000) this.usesWritten.clear();
    this.usesWritten.set(caller.keyId, now);
    this.keys
      .noteUse(caller.workspaceId, caller.keyId)
      .catch((error: Error) => {
        this.usesWritten.delete(caller.keyId);
        this.logger.warn(`Could not write down the use of key ${caller.keyId}: ${error.message}`);
      });
  }

  private async lookUp(keyHash: string): Promise<Caller | null> {
    const row = await this.keys.caller(keyHash);
    if (!row) return null;
    return {
      workspaceId: row.workspace_id,
      workspaceSlug: row.slug,
      plan: row.plan,
      keyId: row.key_id,
      personId: row.created_by,
    };
  }
}
