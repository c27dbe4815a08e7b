import { Injectable } from '@nestjs/common';
import type { SendResult } from '../webhooks/webhook-sender';
import type { EndpointKind } from './webhook-endpoint.entity';

/** Where a delivery goes: an endpoint's kind, or a voter's email. */
export type ChannelKind = EndpointKind | 'email';

/** An endpoint as the outbox sends to it. */
export interface EndpointTarget {
  id: string;
  kind: EndpointKind;
  url: string;
  /** Every signing secret valid now: the current one first, then those of rotations under 24 hours old. */
  secrets: string[];
  enabled: boolean;
  /** Its URL or a secret does not open with this key: its deliveries fail without being sent. */
  unreadable: boolean;
}

/** A delivery this process holds under lease, as the channels and the recorder need it. */
export interface ClaimedDelivery {
  workspace_id: string;
  id: string;
  /** An endpoint delivery has an endpoint; a voter email has a recipient. */
  endpoint_id: string | null;
  recipient: string | null;
  event_type: string;
  event_created_at: Date;
  /** What is sent, made at fan-out; empty for an email rendered at send from `event_data`. */
  body: string;
  /**
   * For a delivery whose body is empty (a voter's email of a status change), its event's data as
   * recorded (outbox_events.data): the channel renders the message from it; null otherwise.
   */
  event_data: string | null;
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

/**
 * The channels, by kind: each registers itself here when its module starts (webhooks provides
 * the own-server channel, notifications Slack, Discord and email), so that the core knows the
 * contract and never the features that fulfil it.
 */
@Injectable()
export class OutboxChannels {
  private readonly byKind = new Map<ChannelKind, Channel>();

  register(channel: Channel): void {
    this.byKind.set(channel.kind, channel);
  }

  get(kind: ChannelKind): Channel {
    const channel = this.byKind.get(kind);
    if (!channel) throw new Error(`No ${kind} channel is registered with the outbox`);
    return channel;
  }
}

/** Slack and Discord: at most one message per second per channel. */
export const CHAT_PACE_MS = 1_000;

export const isChat = (kind: string | null | undefined) => kind === 'slack' || kind === 'discord';
