import { Column, Entity, PrimaryColumn } from 'typeorm';

export const EVENT_TYPES = ['post.created', 'post.status_changed', 'comment.created'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * An event, written in the transaction of the change that caused it. The outbox processor
 * fans each one out to deliveries and sets dispatched_at.
 */
@Entity('outbox_events')
export class OutboxEventEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @PrimaryColumn({ type: 'uuid', default: () => 'gen_random_uuid()' })
  id: string;

  @Column({ type: 'text' })
  type: EventType;

  /** `json`, not `jsonb`: the text is kept as written, so payloads keep the API's field order. */
  @Column({ type: 'json' })
  data: Record<string, unknown>;

  /** Who made the change (not emailed about their own change). */
  @Column({ name: 'actor_id', type: 'uuid', nullable: true })
  actorId: string | null;

  /** The endpoints enabled and subscribed to this type when it happened: they, and only they, get it. */
  @Column({ name: 'endpoint_ids', type: 'uuid', array: true, nullable: true })
  endpointIds: string[] | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'dispatched_at', type: 'timestamptz', precision: 3, nullable: true })
  dispatchedAt: Date | null;
}
