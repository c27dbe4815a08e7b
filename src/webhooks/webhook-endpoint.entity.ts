import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventType } from './outbox-event.entity';

export const ENDPOINT_KINDS = ['webhook', 'slack', 'discord'] as const;
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];
export type DisabledReason = 'user' | 'consecutive_failures' | 'gone';

/** A secret replaced by a rotation: sealed like the current one, valid until `expires_at` (ISO 8601). */
export interface RotatedSecret {
  sealed: string;
  expires_at: string;
}

@Entity('webhook_endpoints')
export class WebhookEndpointEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @PrimaryColumn({ type: 'uuid', default: () => 'gen_random_uuid()' })
  id: string;

  @Column({ type: 'text' })
  kind: EndpointKind;

  /** The URL, sealed: a Slack or Discord URL is a credential. */
  @Column({ name: 'url_sealed', type: 'text' })
  urlSealed: string;

  /** What answers and logs may show: the URL, masked for Slack and Discord. */
  @Column({ name: 'url_shown', type: 'text' })
  urlShown: string;

  @Column({ type: 'text', array: true })
  events: EventType[];

  /** The signing secret (`whsec_…`) of an own-server endpoint, sealed; null for Slack and Discord. */
  @Column({ name: 'secret_sealed', type: 'text', nullable: true })
  secretSealed: string | null;

  /** Secrets replaced by a rotation, newest first, each sealed and signing until its `expires_at`. */
  @Column({ name: 'rotated_secrets', type: 'jsonb', default: () => `'[]'` })
  rotatedSecrets: RotatedSecret[];

  /** Slack and Discord: the channel's next message waits until then (pacing, Retry-After). */
  @Column({ name: 'next_send_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  nextSendAt: Date;

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
