import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { SecretBox } from '../common/secret-box';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { isDistributed } from '../database/distribution';
import { unsubscribeToken } from '../notifications/unsubscribe-token';
import type { EndpointKind } from '../webhooks/webhook-endpoint.entity';
import { Look } from './look';
import { emailBody, endpointBody, OutboxEvent, statusChangeForVoters } from './messages';

export const FAN_OUT_BATCH = 200;

const NOWHERE: Look = new Set<string>();

/**
 * Turns committed events into deliveries, in batches: one per endpoint that was enabled and
 * subscribed to the type when the event happened (the event row keeps their ids), and for a
 * real status change one email per voter with an address (not its author, not unsubscribed)
 * when the board has `notify_voters` on. A free workspace gets neither. Each body is
 * serialised here, once.
 */
@Injectable()
export class FanOut {
  private readonly logger = new Logger('Outbox');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly box: SecretBox,
  ) {}

  /**
   * Fans out one batch; answers where events may still wait (a batch came back full): 'all', or
   * the workspaces whose batch was full (none: an empty set). On one server one batch of every
   * workspace's oldest events (`look` aside). On Citus one batch per workspace with events
   * waiting, each in a transaction of single-shard statements (Citus locks rows, FOR UPDATE
   * SKIP LOCKED, only within one shard): of the workspaces `look` names (a NOTIFY names the
   * workspace whose event committed), or of those a read of every shard finds ('all').
   */
  async run(look: Look = 'all'): Promise<Look> {
    if (!(await isDistributed(this.db))) return (await this.runBatch(null)) === FAN_OUT_BATCH ? 'all' : NOWHERE;
    let workspaces: string[];
    if (look === 'all') {
      const waiting: { workspace_id: string }[] = await this.db.query(
        `SELECT DISTINCT workspace_id FROM outbox_events WHERE dispatched_at IS NULL`,
      );
      workspaces = waiting.map((row) => row.workspace_id);
    } else workspaces = [...look];
    const full = new Set<string>();
    for (const workspaceId of workspaces) {
      if ((await this.runBatch(workspaceId)) === FAN_OUT_BATCH) full.add(workspaceId);
    }
    return full;
  }

  /** One batch: of every workspace's oldest events, or (`workspaceId`) of that one workspace's. */
  private async runBatch(workspaceId: string | null): Promise<number> {
    return this.db.transaction(async (manager) => {
      const events: (OutboxEvent & { plan: string })[] = await manager.query(
        `SELECT o.workspace_id, o.id, o.type, o.created_at, o.data::text AS data, o.actor_id, o.endpoint_ids, w.plan
           FROM outbox_events o JOIN workspaces w ON w.id = o.workspace_id
          WHERE o.dispatched_at IS NULL${workspaceId === null ? '' : ' AND o.workspace_id = $2'}
          ORDER BY o.created_at LIMIT $1 FOR UPDATE OF o SKIP LOCKED`,
        workspaceId === null ? [FAN_OUT_BATCH] : [FAN_OUT_BATCH, workspaceId],
      );
      if (events.length === 0) return 0;
      const endpoints = await this.endpointsOf(manager, events, workspaceId);
      const rows: (string | null)[][] = [[], [], [], [], [], [], [], []];
      const add = (event: OutboxEvent, id: string, endpointId: string | null, recipient: string | null, body: string) =>
        [event.workspace_id, id, endpointId, recipient, event.id, event.type, event.created_at.toISOString(), body].forEach(
          (value, i) => rows[i].push(value),
        );
      for (const event of events) {
        if (event.plan === 'free') continue;
        try {
          for (const endpoint of endpoints.get(event.id) ?? []) {
            const id = randomUUID();
            add(event, id, endpoint.id, null, endpointBody(endpoint.kind, id, event));
          }
          const change = statusChangeForVoters(event);
          if (change) {
            for (const to of await this.votersToEmail(manager, event, change.post.board.id!, change.post.id)) {
              add(event, randomUUID(), null, to, emailBody(change, to, this.unsubscribeUrl(event.workspace_id, to)));
            }
          }
        } catch (error) {
          // One event we cannot turn into messages must not hold back every other one.
          this.logger.error(`Event ${event.id} (${event.type}) could not be fanned out: ${(error as Error).message}`);
        }
      }
      if (rows[0].length > 0) {
        await manager.query(
          `INSERT INTO webhook_deliveries
             (workspace_id, id, endpoint_id, recipient, event_id, event_type, event_created_at, body, next_attempt_at)
           SELECT w, i, e, r, ev, t, c, b, now()
             FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::timestamptz[], $8::text[])
                  AS d(w, i, e, r, ev, t, c, b)
           ON CONFLICT DO NOTHING`,
          rows,
        );
      }
      if (workspaceId === null) {
        await manager.query(
          `UPDATE outbox_events SET dispatched_at = now()
            WHERE (workspace_id, id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`,
          [events.map((e) => e.workspace_id), events.map((e) => e.id)],
        );
      } else {
        await manager.query(`UPDATE outbox_events SET dispatched_at = now() WHERE workspace_id = $1 AND id = ANY ($2::uuid[])`, [
          workspaceId,
          events.map((e) => e.id),
        ]);
      }
      return events.length;
    });
  }

  /**
   * Each event's endpoints: those it recorded, as far as they still exist (a deleted endpoint
   * takes its deliveries with it). An event written before endpoints were recorded falls back
   * to the endpoints subscribed now.
   */
  private async endpointsOf(manager: EntityManager, events: OutboxEvent[], workspaceId: string | null) {
    const rows: { event_id: string; id: string; kind: EndpointKind }[] = await manager.query(
      `SELECT ev.id AS event_id, e.id, e.kind
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) AS ev(workspace_id, id, type, endpoint_ids)
         JOIN webhook_endpoints e ON e.workspace_id = ev.workspace_id${workspaceId === null ? '' : ' AND e.workspace_id = $5'}
        WHERE CASE WHEN ev.endpoint_ids IS NULL THEN e.enabled AND ev.type = ANY (e.events)
                   ELSE e.id = ANY (ev.endpoint_ids::uuid[]) END`,
      [
        events.map((e) => e.workspace_id),
        events.map((e) => e.id),
        events.map((e) => e.type),
        events.map((e) => (e.endpoint_ids ? `{${e.endpoint_ids.join(',')}}` : null)),
        ...(workspaceId === null ? [] : [workspaceId]),
      ],
    );
    const byEvent = new Map<string, { id: string; kind: EndpointKind }[]>();
    for (const row of rows) byEvent.set(row.event_id, [...(byEvent.get(row.event_id) ?? []), row]);
    return byEvent;
  }

  /** Voters of the post with an email address, except whoever made the change and whoever unsubscribed. */
  private async votersToEmail(manager: EntityManager, event: OutboxEvent, boardId: string, postId: number) {
    const rows: { email: string }[] = await manager.query(
      `SELECT DISTINCT p.email
         FROM votes v
         JOIN people p ON p.workspace_id = v.workspace_id AND p.id = v.person_id
         JOIN boards b ON b.workspace_id = v.workspace_id AND b.id = $3
        WHERE v.workspace_id = $1 AND v.post_id = $2 AND b.notify_voters
          AND p.email IS NOT NULL AND p.id IS DISTINCT FROM $4
          AND NOT EXISTS (SELECT 1 FROM people u WHERE u.workspace_id = v.workspace_id
                             AND u.email = p.email AND u.email_unsubscribed_at IS NOT NULL)
        ORDER BY p.email`,
      [event.workspace_id, postId, boardId, event.actor_id],
    );
    return rows.map((row) => row.email);
  }

  private unsubscribeUrl(workspaceId: string, email: string): string {
    return `${this.config.baseUrl}/email/unsubscribe/${unsubscribeToken(this.box, { workspaceId, email })}`;
  }
}
