import { Injectable } from '@nestjs/common';
import { statement, Tx } from '../database/sql';
import type { EventType } from '../webhooks/outbox-event.entity';

/** The channel on which committed events wake the outbox processors; the payload names the workspace. */
export const OUTBOX_CHANNEL = 'chorus_outbox';

/**
 * The channel on which a committed change to what a workspace's public pages show (posts,
 * votes, comments, boards, names) is announced, with the workspace's id: each instance then
 * knows its remembered page validators for that workspace are stale (src/web/shared/page-cache.ts).
 * Every event announces it too.
 */
export const SITE_CHANNEL = 'chorus_site';

/**
 * The endpoints an event of type $2 in workspace $1 goes to: the ones subscribed now get it,
 * however long fan-out takes.
 */
const SUBSCRIBED = `SELECT e.id FROM webhook_endpoints e JOIN workspaces w ON w.id = e.workspace_id
  WHERE e.workspace_id = $1 AND e.enabled AND $2 = ANY (e.events) AND w.plan <> 'free'`;

const NOTIFY = statement('event_notify', `SELECT pg_notify($2, $1::text), pg_notify($3, $1::text)`);

export interface PendingEvent {
  record(data: unknown, actorId: string | null): Promise<void>;
}

/**
 * Writes events (outbox_events) in the transaction of the change that causes them: an event
 * exists exactly when its change does, with the endpoints subscribed at that moment, and the
 * NOTIFYs that wake the processors and stale the pages are delivered at commit. Nothing is
 * awaited: the statements travel with the transaction's next round trip (its COMMIT, often).
 */
@Injectable()
export class EventsStore {
  private static readonly RECORD = statement(
    'event_record',
    `WITH event AS (
       INSERT INTO outbox_events (workspace_id, type, data, actor_id, endpoint_ids)
       SELECT $1, $2, $3, $4, ARRAY(${SUBSCRIBED})
       RETURNING id)
     SELECT pg_notify($5, $1::text), pg_notify($6, $1::text) FROM event`,
  );

  /** Records an event: one statement, sent with the transaction's next round trip. */
  record(tx: Tx, workspaceId: string, type: EventType, data: unknown, actorId: string | null): Promise<void> {
    return this.expect(tx, workspaceId, type).record(data, actorId);
  }

  /**
   * An event of `type` that the transaction is about to record, once its data is known (a row
   * the transaction writes, say): whatever the engine must read for it first is sent now, to
   * travel with the statements that make the data.
   */
  expect(tx: Tx, workspaceId: string, type: EventType): PendingEvent {
    return {
      record: async (data, actorId) =>
        tx.send(EventsStore.RECORD, [workspaceId, type, JSON.stringify(data), actorId, OUTBOX_CHANNEL, SITE_CHANNEL]),
    };
  }

  /** Announces, at commit, that the workspace's pages changed, where no event says so. */
  announceSiteChange(tx: Tx, workspaceId: string): void {
    tx.send(statement('site_notify', `SELECT pg_notify($1, $2::text)`), [SITE_CHANNEL, workspaceId]);
  }
}

/**
 * On Citus the insert runs on the workspace's worker, where nobody LISTENs, and takes no
 * subquery: the endpoints are read first (a round trip of the event's own), and the NOTIFYs go
 * apart, from the coordinator.
 */
@Injectable()
export class CitusEventsStore extends EventsStore {
  private static readonly SUBSCRIBED = statement('event_endpoints', SUBSCRIBED);
  private static readonly INSERT = statement(
    'event_insert',
    `INSERT INTO outbox_events (workspace_id, type, data, actor_id, endpoint_ids) VALUES ($1, $2, $3, $4, $5::uuid[])`,
  );

  override expect(tx: Tx, workspaceId: string, type: EventType): PendingEvent {
    const endpoints = tx.rows<{ id: string }>(CitusEventsStore.SUBSCRIBED, [workspaceId, type]);
    endpoints.catch(() => {}); // awaited by record, or failing the transaction
    return {
      record: async (data, actorId) => {
        const ids = (await endpoints).map((e) => e.id);
        tx.send(CitusEventsStore.INSERT, [workspaceId, type, JSON.stringify(data), actorId, ids]);
        tx.send(NOTIFY, [workspaceId, OUTBOX_CHANNEL, SITE_CHANNEL]);
      },
    };
  }
}
