export const EVENT_TYPES = ['post.created', 'post.status_changed', 'comment.created', 'post.voted', 'changelog.published'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * An event, written in the transaction of the change that caused it. The outbox processor
 * fans each one out to deliveries and sets dispatched_at.
 *
 * A row of `outbox_events`, as its store reads it.
 */
export interface OutboxEventEntity {
  workspaceId: string;
  id: string;
  type: EventType;

  /** `json`, not `jsonb`: the text is kept as written, so payloads keep the API's field order. */
  data: Record<string, unknown>;

  /** Who made the change (not emailed about their own change). */
  actorId: string | null;

  /** The endpoints enabled and subscribed to this type when it happened: they, and only they, get it. */
  endpointIds: string[] | null;
  createdAt: Date;
  dispatchedAt: Date | null;
}
