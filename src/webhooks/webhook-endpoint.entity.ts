import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventType } from './outbox-event.entity';

export const ENDPOINT_KINDS = ['webhook', 'slack', 'discord'] as const;
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];
export type DisabledReason = 'user' | 'consecutive_failures' | 'gone';

@Entity('webhook_endpoints')
export class WebhookEndpointEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @PrimaryColumn({ type: 'uuid', default: () => 'gen_random_uuid()' })
  id: string;

  @Column({ type: 'text' })
  kind: EndpointKind;

  @Column({ type: 'text' })
  url: string;

  @Column({ type: 'text', array: true })
  events: EventType[];

  /** The signing secret (`whsec_…`) of an own-server endpoint; null for Slack and Discord. */
  @Column({ type: 'text', nullable: true })
  secret: string | null;

  /** The secret before the last rotation, still signing until previous_secret_expires_at. */
  @Column({ name: 'previous_secret', type: 'text', nullable: true })
  previousSecret: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', precision: 3, nullable: true })
  previousSecretExpiresAt: Date | null;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ name: 'disabled_reason', type: 'text', nullable: true })
  disabledReason: DisabledReason | null;

  @Column({ name: 'consecutive_failures', type: 'integer', default: 0 })
  consecutiveFailures: number;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  updatedAt: Date;
}
