import type { SendResult } from '../webhooks/webhook-sender';
import type { EndpointTarget } from '../webhooks/endpoints.service';
import type { EndpointKind } from '../webhooks/webhook-endpoint.entity';

export type { EndpointTarget };

/** Where a delivery goes: an endpoint's kind, or a voter's email. */
export type ChannelKind = EndpointKind | 'email';

/** A delivery this process holds under lease, as the channels and the recorder need it. */
export interface ClaimedDelivery {
  workspace_id: string;
  id: string;
  /** An endpoint delivery has an endpoint; a voter email has a recipient. */
  endpoint_id: string | null;
  recipient: string | null;
  event_type: string;
  event_created_at: Date;
  body: string;
  attempt_count: number;
  /** The workspace's plan when it was claimed (what its quota is). */
  plan: string;
}


/** What one attempt came to; `ok` is the channel's own idea of success (2xx, or SMTP 250). */
export interface Outcome extends SendResult {
  ok: boolean;
}

/** A claimed delivery with where it goes: `endpoint` is null for an email. */
export interface Sendable {
  delivery: ClaimedDelivery;
  kind: ChannelKind;
  endpoint: EndpointTarget | null;
}

/**
 * One way out of the outbox. A channel sends one delivery and says what happened; it never
 * decides what is sent next, nor records anything.
 */
export interface Channel {
  readonly kind: ChannelKind;
  send(delivery: ClaimedDelivery, endpoint: EndpointTarget | null): Promise<Outcome>;
}

export const OUTBOX_CHANNELS = Symbol('OUTBOX_CHANNELS');

export const isChat = (kind: string | null | undefined) => kind === 'slack' || kind === 'discord';
