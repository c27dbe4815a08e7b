import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { PreparedSql, PreparedTransaction, sqlText, sqlUuids } from '../database/queries';
import { managerIsDistributed } from '../database/distribution';
import { SITE_CHANNEL } from '../workspaces/site-changes';
import type { EventType } from './outbox-event.entity';

/** The channel on which committed events wake the outbox processors. */
export const OUTBOX_CHANNEL = 'chorus_outbox';

/**
 * The endpoints an event of type $2 in workspace $1 goes to: the ones subscribed now get it,
 * however long fan-out takes.
 */
const SUBSCRIBED = `SELECT e.id FROM webhook_endpoints e JOIN workspaces w ON w.id = e.workspace_id
  WHERE e.workspace_id = $1 AND e.enabled AND $2 = ANY (e.events) AND w.plan <> 'free'`;

const SUBSCRIBED_STATEMENT: PreparedSql = { label: 'event_endpoints', sql: SUBSCRIBED, types: ['uuid', 'text'] };

/** The event's statement: its endpoints fixed, and the NOTIFYs ride on the insert (the outbox's, and the public pages'). */
const RECORD: PreparedSql = {
  label: 'record_event',
  sql: `WITH event AS (
          INSERT INTO outbox_events (workspace_id, type, data, actor_id, endpoint_ids)
          SELECT $1, $2, $3, $4, ARRAY(${SUBSCRIBED})
          RETURNING id)
        SELECT pg_notify($5, ''), pg_notify($6, $1::text) FROM event`,
  types: ['uuid', 'text', 'json', 'uuid', 'text', 'text'],
};

/**
 * Records events in the caller's transaction: the event exists exactly when the change does,
 * with the endpoints subscribed to it at that moment, and the NOTIFY that wakes the processors
 * is delivered at commit.
 */
@Injectable()
export class EventsService {
  /** Records an event in `manager`'s transaction, in one round trip. */
  async record(
    manager: EntityManager,
    workspaceId: string,
    type: EventType,
    data: Record<string, unknown>,
    actorId: string | null = null,
  ): Promise<void> {
    if (await managerIsDistributed(manager)) {
      // On Citus the insert runs on the workspace's worker: the NOTIFYs go apart, from the coordinator;
      // the outbox's names the workspace, where the processors then look (outbox/look.ts).
      // (Citus takes no subquery in an INSERT's values: the endpoints are read first.)
      const endpoints: { id: string }[] = await manager.query(SUBSCRIBED, [workspaceId, type]);
      await manager.query(
        `INSERT INTO outbox_events (workspace_id, type, data, actor_id, endpoint_ids) VALUES ($1, $2, $3, $4, $5::uuid[])`,
        [workspaceId, type, JSON.stringify(data), actorId, endpoints.map((e) => e.id)],
      );
      await manager.query(`SELECT pg_notify($1, $3::text), pg_notify($2, $3::text)`, [OUTBOX_CHANNEL, SITE_CHANNEL, workspaceId]);
      return;
    }
    await manager.query(RECORD.sql, [workspaceId, type, JSON.stringify(data), actorId, OUTBOX_CHANNEL, SITE_CHANNEL]);
  }

  /** On Citus, the endpoints an event of `type` goes to (SUBSCRIBED), as a statement for `PreparedTransaction.batch`. */
  subscribed(workspaceId: string, type: EventType): { statement: PreparedSql; args: string[] } {
    return { statement: SUBSCRIBED_STATEMENT, args: [sqlText(workspaceId), sqlText(type)] };
  }

  /**
   * On Citus, `recordAndCommit` with the endpoints read before (`subscribed`): the insert, then
   * the NOTIFYs from the coordinator, and the commit, in one round trip.
   */
  async recordApartAndCommit(
    tx: PreparedTransaction,
    workspaceId: string,
    type: EventType,
    data: Record<string, unknown>,
    endpointIds: string[],
    actorId: string | null = null,
  ): Promise<void> {
    const ws = sqlText(workspaceId);
    await tx.batch(
      [
        `INSERT INTO outbox_events (workspace_id, type, data, actor_id, endpoint_ids)
         VALUES (${ws}::uuid, ${sqlText(type)}, ${sqlText(JSON.stringify(data))}::json, ${actorId === null ? 'NULL' : `${sqlText(actorId)}::uuid`}, ${sqlUuids(endpointIds)})`,
        `SELECT pg_notify(${sqlText(OUTBOX_CHANNEL)}, ${ws}), pg_notify(${sqlText(SITE_CHANNEL)}, ${ws})`,
      ],
      true,
    );
  }

  /** Records an event as the last statement of `tx`, and commits it, in one round trip. */
  async recordAndCommit(
    tx: PreparedTransaction,
    workspaceId: string,
    type: EventType,
    data: Record<string, unknown>,
    actorId: string | null = null,
  ): Promise<void> {
    await tx.runAndCommit(RECORD, [
      sqlText(workspaceId),
      sqlText(type),
      sqlText(JSON.stringify(data)),
      actorId === null ? 'NULL' : sqlText(actorId),
      sqlText(OUTBOX_CHANNEL),
      sqlText(SITE_CHANNEL),
    ]);
  }
}
