import { Injectable } from '@nestjs/common';
import { Database, Queryable, statement, Tx } from '../database/sql';
import type { EventType } from './outbox-event.entity';
import type { DisabledReason, EndpointKind, RotatedSecret, WebhookEndpointEntity } from './webhook-endpoint.entity';
import type { SealedTarget } from './endpoint-targets';

/** An endpoint as its API shows it and the features change it: the row, named as the entity names it. */
export type EndpointRow = WebhookEndpointEntity;

const ENDPOINT = `workspace_id AS "workspaceId", id, kind, url_sealed AS "urlSealed", url_shown AS "urlShown", events,
  secret_sealed AS "secretSealed", rotated_secrets AS "rotatedSecrets", next_send_at AS "nextSendAt", enabled,
  disabled_reason AS "disabledReason", consecutive_failures AS "consecutiveFailures", created_at AS "createdAt",
  updated_at AS "updatedAt"`;

export interface NewEndpointRow {
  workspaceId: string;
  id: string;
  kind: EndpointKind;
  urlSealed: string;
  urlShown: string;
  events: EventType[];
  secretSealed: string | null;
}

/** What a change writes; what is undefined stays as it is. */
export interface EndpointRowChange {
  urlSealed?: string;
  urlShown?: string;
  events?: EventType[];
  /** Turned back on: its failures and the reason it was off are forgotten. */
  turnOn?: boolean;
}

const forEvents = (scoped: boolean) =>
  `SELECT ev.id AS event_id, e.id, e.kind
     FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) AS ev(workspace_id, id, type, endpoint_ids)
     JOIN webhook_endpoints e ON e.workspace_id = ev.workspace_id${scoped ? ' AND e.workspace_id = $5' : ''}
    WHERE CASE WHEN ev.endpoint_ids IS NULL THEN e.enabled AND ev.type = ANY (e.events)
               ELSE e.id = ANY (ev.endpoint_ids::uuid[]) END`;

/**
 * webhook_endpoints: the destinations of every channel (own servers, Slack, Discord), with the
 * state the outbox keeps for each: a chat channel's pace (next_send_at), the failures in a row
 * and whether it is on.
 */
@Injectable()
export class EndpointsStore {
  private static readonly LIST = statement(
    'endpoint_list',
    `SELECT ${ENDPOINT} FROM webhook_endpoints WHERE workspace_id = $1 ORDER BY created_at, id`,
  );
  private static readonly GET = statement('endpoint_get', `SELECT ${ENDPOINT} FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2`);
  private static readonly GET_LOCKED = statement(
    'endpoint_get_locked',
    `SELECT ${ENDPOINT} FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
  );
  private static readonly WORKSPACE_OF = statement('endpoint_workspace_of', `SELECT workspace_id FROM webhook_endpoints WHERE id = $1`);
  private static readonly COUNT = statement('endpoint_count', `SELECT count(*)::integer AS n FROM webhook_endpoints WHERE workspace_id = $1`);
  // A lock of the workspace's own, not its row: on Citus, workspaces is on every node.
  private static readonly LOCK_CREATIONS = statement(
    'endpoint_lock_creations',
    `SELECT pg_advisory_xact_lock(hashtextextended('chorus:endpoints:' || $1, 0))`,
  );
  private static readonly INSERT = statement(
    'endpoint_insert',
    `INSERT INTO webhook_endpoints (workspace_id, id, kind, url_sealed, url_shown, events, secret_sealed)
     VALUES ($1, $2, $3, $4, $5, $6::text[], $7) RETURNING ${ENDPOINT}`,
  );
  private static readonly CHANGE = statement(
    'endpoint_change',
    `UPDATE webhook_endpoints
        SET url_sealed = coalesce($3, url_sealed), url_shown = coalesce($4, url_shown), events = coalesce($5::text[], events),
            enabled = enabled OR $6, disabled_reason = CASE WHEN $6 THEN NULL ELSE disabled_reason END,
            consecutive_failures = CASE WHEN $6 THEN 0 ELSE consecutive_failures END, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 RETURNING ${ENDPOINT}`,
  );
  private static readonly ROTATE = statement(
    'endpoint_rotate',
    `UPDATE webhook_endpoints SET secret_sealed = $3, rotated_secrets = $4::jsonb, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 RETURNING ${ENDPOINT}`,
  );
  private static readonly DELETE = statement('endpoint_delete', `DELETE FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2`);
  private static readonly DISABLE = statement(
    'endpoint_disable',
    `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2`,
  );
  private static readonly ENABLED_SHARED = statement(
    'endpoint_enabled_shared',
    `SELECT enabled FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2 FOR SHARE`,
  );
  private static readonly TARGETS = statement(
    'endpoint_targets',
    `SELECT id, kind, url_sealed, enabled, secret_sealed, rotated_secrets FROM webhook_endpoints
      WHERE workspace_id = $1 AND id = ANY ($2::uuid[])`,
  );
  private static readonly PACE = statement(
    'endpoint_pace',
    `UPDATE webhook_endpoints SET next_send_at = GREATEST(next_send_at, $3::timestamptz) WHERE workspace_id = $1 AND id = $2`,
  );
  private static readonly PACE_FROM_NOW = statement(
    'endpoint_pace_from_now',
    `UPDATE webhook_endpoints SET next_send_at = now() + $3 * interval '1 millisecond' WHERE workspace_id = $1 AND id = ANY ($2::uuid[])`,
  );
  private static readonly COUNT_FAILURE = statement(
    'endpoint_count_failure',
    `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1
      WHERE workspace_id = $1 AND id = $2 RETURNING consecutive_failures, enabled`,
  );
  private static readonly RESET_FAILURES = statement(
    'endpoint_reset_failures',
    `UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE workspace_id = $1 AND id = ANY ($2::uuid[]) AND consecutive_failures <> 0`,
  );

  private static readonly FOR_EVENTS = statement('endpoint_for_events', forEvents(false));
  private static readonly FOR_EVENTS_IN = statement('endpoint_for_events_in', forEvents(true));

  constructor(private readonly db: Database) {}

  /**
   * Each event's endpoints: those it recorded, as far as they still exist (a deleted endpoint
   * takes its deliveries with it). An event written before endpoints were recorded falls back
   * to the endpoints subscribed now. `workspaceId`: the events are all that workspace's.
   */
  async forEvents(
    tx: Tx,
    events: { workspace_id: string; id: string; type: string; endpoint_ids: string[] | null }[],
    workspaceId: string | null,
  ): Promise<Map<string, { id: string; kind: EndpointKind }[]>> {
    const params: unknown[] = [
      events.map((e) => e.workspace_id),
      events.map((e) => e.id),
      events.map((e) => e.type),
      events.map((e) => (e.endpoint_ids ? `{${e.endpoint_ids.join(',')}}` : null)),
    ];
    const rows = await tx.rows<{ event_id: string; id: string; kind: EndpointKind }>(
      workspaceId === null ? EndpointsStore.FOR_EVENTS : EndpointsStore.FOR_EVENTS_IN,
      workspaceId === null ? params : [...params, workspaceId],
    );
    const byEvent = new Map<string, { id: string; kind: EndpointKind }[]>();
    for (const row of rows) byEvent.set(row.event_id, [...(byEvent.get(row.event_id) ?? []), row]);
    return byEvent;
  }

  list(workspaceId: string): Promise<EndpointRow[]> {
    return this.db.rows(EndpointsStore.LIST, [workspaceId]);
  }

  async get(q: Queryable, workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<EndpointRow | null> {
    const [row] = await q.rows<EndpointRow>(options.lock ? EndpointsStore.GET_LOCKED : EndpointsStore.GET, [workspaceId, id]);
    return row ?? null;
  }

  /** The workspace of an endpoint named by id alone (the operator's CLI). */
  async workspaceOf(id: string): Promise<string | null> {
    const [row] = await this.db.rows<{ workspace_id: string }>(EndpointsStore.WORKSPACE_OF, [id]);
    return row?.workspace_id ?? null;
  }

  async count(q: Queryable, workspaceId: string): Promise<number> {
    const [row] = await q.rows<{ n: number }>(EndpointsStore.COUNT, [workspaceId]);
    return row.n;
  }

  /** Serialises the workspace's creations until the transaction ends (so that the plan's count holds). */
  lockCreations(tx: Tx, workspaceId: string): void {
    tx.send(EndpointsStore.LOCK_CREATIONS, [workspaceId]);
  }

  async insert(tx: Tx, row: NewEndpointRow): Promise<EndpointRow> {
    const [made] = await tx.rows<EndpointRow>(EndpointsStore.INSERT, [
      row.workspaceId,
      row.id,
      row.kind,
      row.urlSealed,
      row.urlShown,
      row.events,
      row.secretSealed,
    ]);
    return made;
  }

  async change(tx: Tx, workspaceId: string, id: string, change: EndpointRowChange): Promise<EndpointRow | null> {
    const [row] = await tx.rows<EndpointRow>(EndpointsStore.CHANGE, [
      workspaceId,
      id,
      change.urlSealed ?? null,
      change.urlShown ?? null,
      change.events ?? null,
      change.turnOn === true,
    ]);
    return row ?? null;
  }

  async rotate(tx: Tx, workspaceId: string, id: string, secretSealed: string, rotated: RotatedSecret[]): Promise<EndpointRow> {
    const [row] = await tx.rows<EndpointRow>(EndpointsStore.ROTATE, [workspaceId, id, secretSealed, JSON.stringify(rotated)]);
    return row;
  }

  /** Deletes an endpoint; its deliveries and their attempts go with it (foreign keys). */
  async delete(workspaceId: string, id: string): Promise<void> {
    await this.db.count(EndpointsStore.DELETE, [workspaceId, id]);
  }

  disable(tx: Tx, workspaceId: string, id: string, reason: DisabledReason): void {
    tx.send(EndpointsStore.DISABLE, [workspaceId, id, reason]);
  }

  /** Whether an endpoint is on (null: there is none), held so until the transaction ends. */
  async enabledHeld(tx: Tx, workspaceId: string, id: string): Promise<boolean | null> {
    const [row] = await tx.rows<{ enabled: boolean }>(EndpointsStore.ENABLED_SHARED, [workspaceId, id]);
    return row ? row.enabled : null;
  }

  /** Endpoints of one workspace as the outbox sends to them, sealed. */
  targets(workspaceId: string, ids: string[]): Promise<SealedTarget[]> {
    return this.db.rows(EndpointsStore.TARGETS, [workspaceId, ids]);
  }

  /** A chat channel's next message waits until `until` at least. */
  pace(tx: Tx, workspaceId: string, id: string, until: Date): void {
    tx.send(EndpointsStore.PACE, [workspaceId, id, until]);
  }

  /** Chat channels whose next message waits `ms` from now (a claim took their turn). */
  paceFromNow(tx: Tx, workspaceId: string, ids: string[], ms: number): void {
    tx.send(EndpointsStore.PACE_FROM_NOW, [workspaceId, ids, ms]);
  }

  /** One more failure in a row; answers the count and whether the endpoint is on (none: it is gone). */
  async countFailure(tx: Tx, workspaceId: string, id: string): Promise<{ consecutive_failures: number; enabled: boolean } | null> {
    const [row] = await tx.rows<{ consecutive_failures: number; enabled: boolean }>(EndpointsStore.COUNT_FAILURE, [workspaceId, id]);
    return row ?? null;
  }

  /** A success: no failures in a row. */
  resetFailures(tx: Tx, workspaceId: string, ids: string[]): void {
    tx.send(EndpointsStore.RESET_FAILURES, [workspaceId, ids]);
  }
}
