import type { EventType } from './outbox-event.entity';

export const ENDPOINT_KINDS = ['webhook', 'slack', 'discord'] as const;
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];
export type DisabledReason = 'user' | 'consecutive_failures' | 'gone';

/** A secret replaced by a rotation: sealed like the current one, valid until `expires_at` (ISO 8601). */
export interface RotatedSecret {
  sealed: string;
  expires_at: string;
}

/** A row of `webhook_endpoints`, as its store reads it. */
export interface WebhookEndpointEntity {
  workspaceId: string;
  id: string;
  kind: EndpointKind;

  /** The URL, sealed: a Slack or Discord URL is a credential. */
  urlSealed: string;

  /** What answers and logs may show: the URL, masked for Slack and Discord. */
  urlShown: string;
  events: EventType[];

  /** The signing secret (`whsec_…`) of an own-server endpoint, sealed; null for Slack and Discord. */
  secretSealed: string | null;

  /** Secrets replaced by a rotation, newest first, each sealed and signing until its `expires_at`. */
  rotatedSecrets: RotatedSecret[];

  /** Slack and Discord: the channel's next message waits until then (pacing, Retry-After). */
  nextSendAt: Date;
  enabled: boolean;
  disabledReason: DisabledReason | null;
  consecutiveFailures: number;
  createdAt: Date;
  updatedAt: Date;
}
