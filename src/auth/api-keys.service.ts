import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AppError } from '../common/app-error';
import { randomBase62 } from '../common/random';
import type { Caller } from '../common/request-context';
import { PLANS, isPlan } from '../workspaces/plans';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { ApiKeyEntity } from './api-key.entity';
import { CallerCache } from './caller-cache';

export const KEY_PREFIX = 'chorus_key_';
const BEARER = /^bearer +(\S+) *$/i;
const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

@Injectable()
export class ApiKeysService {
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    private readonly workspaces: WorkspacesService,
    private readonly callers: CallerCache,
  ) {}

  /** Makes a key for a member; the plain key is returned here and never again. */
  async create(workspaceSlug: string, memberEmail: string): Promise<{ id: string; key: string }> {
    const workspace = await this.workspaces.findBySlug(workspaceSlug);
    const member = await this.workspaces.findMemberByEmail(workspace.id, memberEmail);
    const key = KEY_PREFIX + randomBase62(40);
    const saved = await this.keys.save(
      this.keys.create({
        workspaceId: workspace.id,
        keyHash: hashKey(key),
        keyPrefix: key.slice(0, KEY_PREFIX.length + 4),
        createdBy: member.id,
      }),
    );
    return { id: saved.id, key };
  }

  list(workspaceId: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { workspaceId }, order: { createdAt: 'ASC' } });
  }

  async revoke(id: string): Promise<void> {
    const key = /^[0-9a-f-]{36}$/i.test(id) ? await this.keys.findOneBy({ id }) : null;
    if (!key) throw new AppError('not_found', `No API key with id ${id}.`);
    if (!key.revokedAt) await this.keys.update({ workspaceId: key.workspaceId, id }, { revokedAt: new Date() });
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
    return this.callers.get(keyHash, () => this.lookUp(keyHash));
  }

  private async lookUp(keyHash: string): Promise<Caller | null> {
    const rows: { key_id: string; created_by: string; workspace_id: string; slug: string; plan: string }[] =
      await this.keys.query(
        `SELECT k.id AS key_id, k.created_by, w.id AS workspace_id, w.slug, w.plan
           FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
          WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
        [keyHash],
      );
    const row = rows[0];
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
