import { Injectable } from '@nestjs/common';
import { Database, statement, Tx } from '../database/sql';
import type { EventType } from './outbox-event.entity';
import type { Look } from './look';

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

/** A committed event as the processor reads it: `data` is the JSON text as written. */
export interface OutboxEvent {
  workspace_id: string;
  id: string;
  type: EventType;
  created_at: Date;
  data: string;
  actor_id: string | null;
  /** The endpoints subscribed when the event happened (null for events written before this was kept). */
  endpoint_ids: string[] | null;
}

/** An event not fanned out yet, with its workspace's plan. */
export type UndispatchedEvent = OutboxEvent & { plan: string };

const undispatched = (scoped: boolean) =>
  `SELECT o.workspace_id, o.id, o.type, o.created_at, o.data::text AS data, o.actor_id, o.endpoint_ids, w.plan
     FROM outbox_events o JOIN workspaces w ON w.id = o.workspace_id
    WHERE o.dispatched_at IS NULL${scoped ? ' AND o.workspace_id = $2' : ''}
    ORDER BY o.created_at LIMIT $1 FOR UPDATE OF o SKIP LOCKED`;

/**
 * outbox_events. Writes events in the transaction of the change that causes them: an event
 * exists exactly when its change does, with the endpoints subscribed at that moment, and the
 * NOTIFYs that wake the processors and stale the pages are delivered at commit. Nothing is
 * awaited: the statements travel with the transaction's next round trip (its COMMIT, often).
 * Fan-out then takes them in batches and marks them dispatched.
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
  private static readonly UNDISPATCHED = statement('event_undispatched', undispatched(false));
  private static readonly UNDISPATCHED_IN = statement('event_undispatched_in', undispatched(true));
  private static readonly DISPATCHED = statement(
    'event_dispatched',
    `UPDATE outbox_events SET dispatched_at = now() WHERE (workspace_id, id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`,
  );
  private static readonly DISPATCHED_IN = statement(
    'event_dispatched_in',
    `UPDATE outbox_events SET dispatched_at = now() WHERE workspace_id = $1 AND id = ANY ($2::uuid[])`,
  );

  constructor(protected readonly db: Database) {}

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

  /**
   * What fan-out takes batch after batch from: on one server `null`, every workspace's oldest
   * events at once (`look` aside).
   */
  async fanOutScopes(_look: Look): Promise<(string | null)[]> {
    return [null];
  }

  /**
   * Up to `limit` events not fanned out yet, oldest first, locked (skipping those another
   * processor holds): of every workspace, or of `workspaceId`'s alone.
   */
  undispatched(tx: Tx, limit: number, workspaceId: string | null): Promise<UndispatchedEvent[]> {
    return workspaceId === null
      ? tx.rows(EventsStore.UNDISPATCHED, [limit])
      : tx.rows(EventsStore.UNDISPATCHED_IN, [limit, workspaceId]);
  }

  /** Events fanned out (of `workspaceId`'s alone, when named). */
  markDispatched(tx: Tx, events: { workspace_id: string; id: string }[], workspaceId: string | null): void {
    if (workspaceId === null) tx.send(EventsStore.DISPATCHED, [events.map((e) => e.workspace_id), events.map((e) => e.id)]);
    else tx.send(EventsStore.DISPATCHED_IN, [workspaceId, events.map((e) => e.id)]);
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

  private static readonly WAITING = statement(
    'event_waiting_workspaces',
    `SELECT DISTINCT workspace_id FROM outbox_events WHERE dispatched_at IS NULL`,
  );

  /**
   * One batch per workspace with events waiting, each in a transaction of single-shard
   * statements (Citus locks rows, FOR UPDATE SKIP LOCKED, only within one shard): of the
   * workspaces `look` names (a NOTIFY names the workspace whose event committed), or of those a
   * read of every shard finds ('all').
   */
  override async fanOutScopes(look: Look): Promise<(string | null)[]> {
    if (look !== 'all') return [...look];
    return (await this.db.rows<{ workspace_id: string }>(CitusEventsStore.WAITING)).map((row) => row.workspace_id);
  }
}
