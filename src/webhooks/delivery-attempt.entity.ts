import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('delivery_attempts')
export class DeliveryAttemptEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @PrimaryColumn({ type: 'uuid', default: () => 'gen_random_uuid()' })
  id: string;

  @Column({ name: 'delivery_id', type: 'uuid' })
  deliveryId: string;

  @Column({ type: 'timestamptz', precision: 3 })
  at: Date;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs: number;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  /** The class of failure when there was no HTTP answer: timeout, connection_refused, … */
  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** The first 2 KiB of the answer's body. */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;
}
