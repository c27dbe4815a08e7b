import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { randomBase62 } from '../common/random';
import { SecretBox } from '../common/secret-box';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Database, Queryable } from '../database/sql';
import { PLANS, isPlan } from '../workspaces/plans';
import { maskChatUrl } from '../notifications/chat-messages';
import type { EndpointTarget } from '../outbox/channel';
import { secretContext, urlContext } from '../outbox/endpoint-targets';
import { OutboxEndpoints } from '../outbox/outbox-endpoints.service';
import { checkTargetUrl } from './address-guard';
import { NameResolver } from './name-resolver';
import type { EventType } from '../outbox/outbox-event.entity';
import { EndpointKind, WebhookEndpointEntity } from '../outbox/webhook-endpoint.entity';

export type { EndpointTarget };
export { secretContext, urlContext };

export const SECRET_PREFIX = 'whsec_';
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

const newSecret = () => SECRET_PREFIX + randomBase62(40);

/** An endpoint and, right after it was made or rotated, its plain signing secret. */
export interface EndpointWithSecret {
  endpoint: WebhookEndpointEntity;
  secret: string | null;
}

/**
 * Webhook, Slack and Discord endpoints as the API, the dashboard and the CLI manage them: the
 * plan's count, the URL checks, the sealing of URLs and secrets. The rows are the outbox's
 * (OutboxEndpoints), which keeps their pace and failures.
 */
@Injectable()
export class EndpointsService {
  constructor(
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly box: SecretBox,
    private readonly resolver: NameResolver,
    private readonly endpoints: OutboxEndpoints,
  ) {}

  list(workspaceId: string): Promise<WebhookEndpointEntity[]> {
    return this.endpoints.list(workspaceId);
  }

  async get(workspaceId: string, id: string, q: Queryable = this.db, options: { lock?: boolean } = {}): Promise<WebhookEndpointEntity> {
    const endpoint = UUID.test(id) ? await this.endpoints.get(workspaceId, id, q, options) : null;
    if (!endpoint) throw AppError.notFound('webhook endpoint');
    return endpoint;
  }

  /** The operator's view (CLI): an endpoint by id, whatever its workspace. */
  async workspaceOf(id: string): Promise<string> {
    const workspaceId = UUID.test(id) ? await this.endpoints.workspaceOf(id) : null;
    if (!workspaceId) throw new AppError('not_found', `No webhook endpoint with id ${id}.`);
    return workspaceId;
  }

  /** Creates an endpoint within the plan's count; the answer is the only time its secret is shown. */
  async create(owner: EndpointOwner, input: NewEndpoint): Promise<EndpointWithSecret> {
    const kind = input.kind ?? 'webhook';
    // The count first: a workspace at its limit makes no lookups.
    await this.checkPlanCount(this.db, owner);
    await this.checkUrl(owner.workspaceId, kind, input.url);
    return this.db.transaction(async (tx) => {
      // Serialises creations in this workspace, so that two at once cannot pass the plan's count.
      this.endpoints.lockCreations(tx, owner.workspaceId);
      await this.checkPlanCount(tx, owner);
      const id = randomUUID();
      const secret = kind === 'webhook' ? newSecret() : null;
      const endpoint = await this.endpoints.insert(tx, {
        workspaceId: owner.workspaceId,
        id,
        kind,
        ...this.sealUrl(id, kind, input.url),
        events: input.events,
        secretSealed: secret ? this.box.seal(secret, secretContext(id)) : null,
      });
      return { endpoint, secret };
    });
  }

  async update(workspaceId: string, id: string, change: EndpointChange): Promise<WebhookEndpointEntity> {
    // Checked (DNS included) before the transaction, which must not wait on a lookup.
    if (change.url !== undefined) await this.checkUrl(workspaceId, (await this.get(workspaceId, id)).kind, change.url);
    return this.db.transaction(async (tx) => {
      const endpoint = await this.get(workspaceId, id, tx);
      if (change.enabled === false && endpoint.enabled) this.endpoints.disable(tx, workspaceId, endpoint.id, 'user');
      const changed = await this.endpoints.change(tx, workspaceId, endpoint.id, {
        ...(change.url !== undefined ? this.sealUrl(endpoint.id, endpoint.kind, change.url) : {}),
        events: change.events,
        turnOn: change.enabled === true && !endpoint.enabled,
      });
      if (!changed) throw AppError.notFound('webhook endpoint'); // deleted meanwhile
      return changed;
    });
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    const endpoint = await this.get(workspaceId, id);
    await this.endpoints.remove(workspaceId, endpoint.id);
  }

  /**
   * A new secret; the one it replaces keeps signing for 24 hours, so receivers can switch over,
   * and so do those replaced earlier until their own 24 hours are up.
   */
  async rotateSecret(workspaceId: string, id: string): Promise<EndpointWithSecret> {
    return this.db.transaction(async (tx) => {
      // Locked: two rotations at once must not both keep only their own view of the list.
      const endpoint = await this.get(workspaceId, id, tx, { lock: true });
      if (endpoint.kind !== 'webhook') {
        throw AppError.invalid('path', `endpoint ${endpoint.id} is a ${endpoint.kind} endpoint; only webhook endpoints have a signing secret`);
      }
      const secret = newSecret();
      const now = new Date();
      const rotated = [
        { sealed: endpoint.secretSealed!, expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString() },
        ...endpoint.rotatedSecrets.filter((r) => new Date(r.expires_at) > now),
      ];
      return { endpoint: await this.endpoints.rotate(tx, workspaceId, endpoint.id, this.box.seal(secret, secretContext(endpoint.id)), rotated), secret };
    });
  }

  /** The endpoints of one workspace as the outbox sends to them (see OutboxEndpoints.targets). */
  targets(workspaceId: string, ids: string[]): Promise<Map<string, EndpointTarget>> {
    return this.endpoints.targets(workspaceId, ids);
  }

  private sealUrl(id: string, kind: EndpointKind, url: string): { urlSealed: string; urlShown: string } {
    return { urlSealed: this.box.seal(url, urlContext(id)), urlShown: kind === 'webhook' ? url : maskChatUrl(url) };
  }

  private async checkPlanCount(q: Queryable, owner: EndpointOwner): Promise<void> {
    const allowed = isPlan(owner.plan) ? PLANS[owner.plan].webhookEndpoints : 0;
    const existing = await this.endpoints.count(owner.workspaceId, q);
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
