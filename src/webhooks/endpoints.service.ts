import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { randomBase62 } from '../common/random';
import { SecretBox } from '../common/secret-box';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { PLANS, isPlan } from '../workspaces/plans';
import { maskChatUrl } from '../notifications/chat-messages';
import { checkTargetUrl } from './address-guard';
import { NameResolver } from './name-resolver';
import type { EventType } from './outbox-event.entity';
import { EndpointKind, RotatedSecret, WebhookEndpointEntity } from './webhook-endpoint.entity';

export const SECRET_PREFIX = 'whsec_';
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An endpoint as the outbox sends to it. */
export interface EndpointTarget {
  id: string;
  kind: EndpointKind;
  url: string;
  /** Every signing secret valid now: the current one first, then those of rotations under 24 hours old. */
  secrets: string[];
  enabled: boolean;
  /** Its URL or a secret does not open with this key: its deliveries fail without being sent. */
  unreadable: boolean;
}

export interface EndpointOwner {
  workspaceId: string;
  plan: string;
}

export interface NewEndpoint {
  kind?: EndpointKind;
  url: string;
  events: EventType[];
}

export interface EndpointChange {
  url?: string;
  events?: EventType[];
  enabled?: boolean;
}

/** What the outbox reads of an endpoint (`e`) to send to it; `openTarget` unseals it. */
export const TARGET_COLUMNS = 'e.id, e.kind, e.url_sealed, e.enabled, e.secret_sealed, e.rotated_secrets';

export interface SealedTarget {
  id: string;
  kind: EndpointKind;
  url_sealed: string;
  enabled: boolean;
  secret_sealed: string | null;
  rotated_secrets: RotatedSecret[];
}

const newSecret = () => SECRET_PREFIX + randomBase62(40);

/** Where each sealed value lives: a value copied to another row or column does not open. */
export const urlContext = (id: string) => `webhook_endpoints.url:${id}`;
export const secretContext = (id: string) => `webhook_endpoints.secret:${id}`;

/** An endpoint and, right after it was made or rotated, its plain signing secret. */
export interface EndpointWithSecret {
  endpoint: WebhookEndpointEntity;
  secret: string | null;
}

@Injectable()
export class EndpointsService {
  private readonly logger = new Logger('Endpoints');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly box: SecretBox,
    private readonly resolver: NameResolver,
  ) {}

  list(workspaceId: string): Promise<WebhookEndpointEntity[]> {
    return this.db.getRepository(WebhookEndpointEntity).find({ where: { workspaceId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  async get(
    workspaceId: string,
    id: string,
    manager: EntityManager = this.db.manager,
    options: { lock?: boolean } = {},
  ): Promise<WebhookEndpointEntity> {
    const endpoint = UUID.test(id)
      ? await manager.getRepository(WebhookEndpointEntity).findOne({
          where: { workspaceId, id },
          lock: options.lock ? { mode: 'pessimistic_write' } : undefined,
        })
      : null;
    if (!endpoint) throw AppError.notFound('webhook endpoint');
    return endpoint;
  }

  /** The operator's view (CLI): an endpoint by id, whatever its workspace. */
  async workspaceOf(id: string): Promise<string> {
    const endpoint = UUID.test(id) ? await this.db.getRepository(WebhookEndpointEntity).findOneBy({ id }) : null;
    if (!endpoint) throw new AppError('not_found', `No webhook endpoint with id ${id}.`);
    return endpoint.workspaceId;
  }

  /** Creates an endpoint within the plan's count; the answer is the only time its secret is shown. */
  async create(owner: EndpointOwner, input: NewEndpoint): Promise<EndpointWithSecret> {
    const kind = input.kind ?? 'webhook';
    // The count first: a workspace at its limit makes no lookups.
    await this.checkPlanCount(this.db.manager, owner);
    await this.checkUrl(owner.workspaceId, kind, input.url);
    return this.db.transaction(async (manager) => {
      // Serialises creations in this workspace, so that two at once cannot pass the plan's count.
      // (A lock of the workspace's own, not its row: on Citus, workspaces is on every node.)
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('chorus:endpoints:' || $1, 0))`, [owner.workspaceId]);
      await this.checkPlanCount(manager, owner);
      const id = randomUUID();
      const secret = kind === 'webhook' ? newSecret() : null;
      const repo = manager.getRepository(WebhookEndpointEntity);
      const endpoint = await repo.save(
        repo.create({
          workspaceId: owner.workspaceId,
          id,
          kind,
          ...this.sealUrl(id, kind, input.url),
          events: input.events,
          secretSealed: secret ? this.box.seal(secret, secretContext(id)) : null,
        }),
      );
      return { endpoint, secret };
    });
  }

  async update(workspaceId: string, id: string, change: EndpointChange): Promise<WebhookEndpointEntity> {
    // Checked (DNS included) before the transaction, which must not wait on a lookup.
    if (change.url !== undefined) await this.checkUrl(workspaceId, (await this.get(workspaceId, id)).kind, change.url);
    return this.db.transaction(async (manager) => {
      const endpoint = await this.get(workspaceId, id, manager);
      if (change.url !== undefined) Object.assign(endpoint, this.sealUrl(endpoint.id, endpoint.kind, change.url));
      if (change.events !== undefined) endpoint.events = change.events;
      if (change.enabled === true && !endpoint.enabled) {
        endpoint.enabled = true;
        endpoint.disabledReason = null;
        endpoint.consecutiveFailures = 0;
      } else if (change.enabled === false && endpoint.enabled) {
        await this.disable(manager, endpoint, 'user');
      }
      endpoint.updatedAt = new Date();
      return manager.getRepository(WebhookEndpointEntity).save(endpoint);
    });
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    const endpoint = await this.get(workspaceId, id);
    await this.db.getRepository(WebhookEndpointEntity).delete({ workspaceId, id: endpoint.id });
  }

  /**
   * A new secret; the one it replaces keeps signing for 24 hours, so receivers can switch over,
   * and so do those replaced earlier until their own 24 hours are up.
   */
  async rotateSecret(workspaceId: string, id: string): Promise<EndpointWithSecret> {
    return this.db.transaction(async (manager) => {
      // Locked: two rotations at once must not both keep only their own view of the list.
      const endpoint = await this.get(workspaceId, id, manager, { lock: true });
      if (endpoint.kind !== 'webhook') {
        throw AppError.invalid('path', `endpoint ${endpoint.id} is a ${endpoint.kind} endpoint; only webhook endpoints have a signing secret`);
      }
      const secret = newSecret();
      const now = new Date();
      endpoint.rotatedSecrets = [
        { sealed: endpoint.secretSealed!, expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString() },
        ...endpoint.rotatedSecrets.filter((rotated) => new Date(rotated.expires_at) > now),
      ];
      endpoint.secretSealed = this.box.seal(secret, secretContext(endpoint.id));
      endpoint.updatedAt = now;
      return { endpoint: await manager.getRepository(WebhookEndpointEntity).save(endpoint), secret };
    });
  }

  /**
   * The secrets an own-server endpoint signs with now, unsealed: its current secret first, then
   * every rotated-out one still within its 24 hours, newest first (one `v1=` each in
   * `Chorus-Signature`). None for Slack and Discord. Throws when one does not open with this
   * ENCRYPTION_KEY.
   */
  signingSecrets(
    endpoint: Pick<WebhookEndpointEntity, 'id' | 'secretSealed' | 'rotatedSecrets'>,
    now: Date = new Date(),
  ): string[] {
    const sealed = [
      endpoint.secretSealed,
      ...endpoint.rotatedSecrets.filter((rotated) => new Date(rotated.expires_at) > now).map((rotated) => rotated.sealed),
    ];
    return sealed.filter((s): s is string => !!s).map((s) => this.box.open(s, secretContext(endpoint.id)));
  }

  /**
   * Turns an endpoint off and cancels what it still had pending. Used by the user (PATCH,
   * CLI) and by the processor after too many failures.
   */
  async disable(
    manager: EntityManager,
    endpoint: Pick<WebhookEndpointEntity, 'workspaceId' | 'id'> & Partial<WebhookEndpointEntity>,
    reason: WebhookEndpointEntity['disabledReason'],
  ): Promise<void> {
    await manager.query(
      `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $3, updated_at = now()
        WHERE workspace_id = $1 AND id = $2`,
      [endpoint.workspaceId, endpoint.id, reason],
    );
    await manager.query(
      // A delivery under way is left to its processor: it records what came of the attempt (a
      // success stays a success) and cancels it if it failed.
      `UPDATE webhook_deliveries SET status = 'cancelled', reason = 'endpoint_disabled', next_attempt_at = NULL,
              locked_by = NULL, locked_until = NULL
        WHERE workspace_id = $1 AND endpoint_id = $2 AND status = 'pending'
          AND (locked_by IS NULL OR locked_until < now())`,
      [endpoint.workspaceId, endpoint.id],
    );
    Object.assign(endpoint, { enabled: false, disabledReason: reason });
  }

  /**
   * The endpoints as the outbox sends to them: URL and every valid signing secret unsealed. One
   * whose URL or secret does not open with this ENCRYPTION_KEY (restored under another key, say)
   * is `unreadable` and logged, without stopping the others.
   */
  async targets(refs: { workspace_id: string; endpoint_id: string }[]): Promise<Map<string, EndpointTarget>> {
    if (refs.length === 0) return new Map();
    // One statement per workspace (on Citus, each on its workspace's shard).
    const rows: SealedTarget[] = [];
    for (const workspaceId of new Set(refs.map((r) => r.workspace_id))) {
      rows.push(
        ...(await this.db.query(`SELECT ${TARGET_COLUMNS} FROM webhook_endpoints e WHERE e.workspace_id = $1 AND e.id = ANY ($2::uuid[])`, [
          workspaceId,
          refs.filter((r) => r.workspace_id === workspaceId).map((r) => r.endpoint_id),
        ])),
      );
    }
    const now = new Date();
    return new Map(rows.map((row) => [row.id, this.openTarget(row, now)]));
  }

  /** An endpoint row as read with TARGET_COLUMNS, unsealed as `targets` does. */
  openTarget(row: SealedTarget, now: Date = new Date()): EndpointTarget {
    const target: EndpointTarget = { id: row.id, kind: row.kind, url: '', secrets: [], enabled: row.enabled, unreadable: false };
    try {
      target.secrets = this.signingSecrets({ id: row.id, secretSealed: row.secret_sealed, rotatedSecrets: row.rotated_secrets }, now);
      target.url = this.box.open(row.url_sealed, urlContext(row.id));
    } catch {
      this.logger.error(`Endpoint ${row.id}: its URL or signing secret does not open with this ENCRYPTION_KEY.`);
      target.unreadable = true;
    }
    return target;
  }

  private sealUrl(id: string, kind: EndpointKind, url: string): Pick<WebhookEndpointEntity, 'urlSealed' | 'urlShown'> {
    return { urlSealed: this.box.seal(url, urlContext(id)), urlShown: kind === 'webhook' ? url : maskChatUrl(url) };
  }

  private async checkPlanCount(manager: EntityManager, owner: EndpointOwner): Promise<void> {
    const allowed = isPlan(owner.plan) ? PLANS[owner.plan].webhookEndpoints : 0;
    const existing = await manager.getRepository(WebhookEndpointEntity).countBy({ workspaceId: owner.workspaceId });
    if (existing >= allowed) {
      throw new AppError(
        'plan_required',
        allowed === 0
          ? 'Webhook endpoints are available on the Pro plan and above.'
          : `This workspace's plan allows ${allowed} webhook endpoints; delete one or upgrade the plan.`,
      );
    }
  }

  /**
   * Own servers: https to public addresses only. Slack and Discord: their incoming-webhook URLs
   * only. The development switch lifts both.
   */
  private checkUrl(workspaceId: string, kind: EndpointKind, url: string): Promise<void> {
    return checkTargetUrl(kind, url, { allowPrivate: this.config.webhookAllowPrivateTargets, resolver: this.resolver, workspaceId });
  }
}
