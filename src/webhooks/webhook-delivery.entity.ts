import { Column, Entity, PrimaryColumn } from 'typeorm';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';
export type DeliveryReason = 'quota_exceeded' | 'endpoint_disabled' | 'retries_exhausted' | 'unsubscribed' | 'expired';

/**
 * One event for one endpoint, or one voter's email about it. `body` is serialised once; every
 * attempt sends these bytes.
 */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  /** Also the `Chorus-Delivery` header and the body's `id`. */
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'endpoint_id', type: 'uuid', nullable: true })
  endpointId: string | null;

  /** The email address of a voter email; null for endpoint deliveries. */
  @Column({ type: 'text', nullable: true })
  recipient: string | null;

  @Column({ name: 'event_id', type: 'uuid' })
  eventId: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType: string;

  @Column({ name: 'event_created_at', type: 'timestamptz', precision: 3 })
  eventCreatedAt: Date;

  @Column({ type: 'text' })
  body: string;

  @Column({ type: 'text', default: 'pending' })
  status: DeliveryStatus;

  @Column({ type: 'text', nullable: true })
  reason: DeliveryReason | null;

  @Column({ name: 'attempt_count', type: 'integer', default: 0 })
  attemptCount: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', precision: 3, nullable: true })
  nextAttemptAt: Date | null;

  @Column({ name: 'locked_by', type: 'text', nullable: true })
  lockedBy: string | null;

  @Column({ name: 'locked_until', type: 'timestamptz', precision: 3, nullable: true })
  lockedUntil: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'delivered_at', type: 'timestamptz', precision: 3, nullable: true })
  deliveredAt: Date | null;
}
