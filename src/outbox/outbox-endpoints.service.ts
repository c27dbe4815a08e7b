import { Injectable } from '@nestjs/common';
import { Database, Queryable, Tx } from '../database/sql';
import type { DisabledReason, RotatedSecret } from './webhook-endpoint.entity';
import type { EndpointTarget } from './channel';
import { DeliveriesStore } from './deliveries.store';
import { EndpointTargets } from './endpoint-targets';
import { EndpointRow, EndpointRowChange, EndpointsStore, NewEndpointRow } from './endpoints.store';

export type { EndpointRow, EndpointRowChange, NewEndpointRow };

/**
 * The outbox's endpoints, as the features that manage them (the webhooks API, the dashboard,
 * the CLI) read and change them: the destinations of every channel, whose pace and failures
 * the outbox keeps. The caller owns the transaction; the rules (plans, URLs, secrets) are its.
 */
@Injectable()
export class OutboxEndpoints {
  constructor(
    private readonly db: Database,
    private readonly endpoints: EndpointsStore,
    private readonly deliveries: DeliveriesStore,
    private readonly open: EndpointTargets,
  ) {}

  list(workspaceId: string): Promise<EndpointRow[]> {
    return this.endpoints.list(workspaceId);
  }

  /** An endpoint, or null; with `lock`, held until the transaction `q` ends. */
  get(workspaceId: string, id: string, q: Queryable = this.db, options: { lock?: boolean } = {}): Promise<EndpointRow | null> {
    return this.endpoints.get(q, workspaceId, id, options);
  }

  /** The workspace of an endpoint named by id alone (the operator's CLI). */
  workspaceOf(id: string): Promise<string | null> {
    return this.endpoints.workspaceOf(id);
  }

  count(workspaceId: string, q: Queryable = this.db): Promise<number> {
    return this.endpoints.count(q, workspaceId);
  }

  /** Serialises the workspace's creations until the transaction ends. */
  lockCreations(tx: Tx, workspaceId: string): void {
    this.endpoints.lockCreations(tx, workspaceId);
  }

  insert(tx: Tx, row: NewEndpointRow): Promise<EndpointRow> {
    return this.endpoints.insert(tx, row);
  }

  change(tx: Tx, workspaceId: string, id: string, change: EndpointRowChange): Promise<EndpointRow | null> {
    return this.endpoints.change(tx, workspaceId, id, change);
  }

  rotate(tx: Tx, workspaceId: string, id: string, secretSealed: string, rotated: RotatedSecret[]): Promise<EndpointRow> {
    return this.endpoints.rotate(tx, workspaceId, id, secretSealed, rotated);
  }

  /** Deletes an endpoint, with its deliveries and their attempts. */
  remove(workspaceId: string, id: string): Promise<void> {
    return this.endpoints.delete(workspaceId, id);
  }

  /**
   * Turns an endpoint off and cancels what it still had pending (but for deliveries under way:
   * their processor records what came of the attempt). By the user (PATCH, CLI) and by the
   * processor after too many failures.
   */
  disable(tx: Tx, workspaceId: string, id: string, reason: DisabledReason): void {
    this.endpoints.disable(tx, workspaceId, id, reason);
    this.deliveries.cancelPendingOf(tx, workspaceId, id);
  }

  /** Endpoints of one workspace as the outbox sends to them, unsealed (see EndpointTargets.open). */
  async targets(workspaceId: string, ids: string[]): Promise<Map<string, EndpointTarget>> {
    if (ids.length === 0) return new Map();
    const now = new Date();
    return new Map((await this.endpoints.targets(workspaceId, ids)).map((row) => [row.id, this.open.open(row, now)]));
  }
}
