import { ChatEvent, discordMessage, PostStatusChangedData, slackMessage } from '../notifications/chat-messages';
import { isRealStatusChange, voterEmail } from '../notifications/voter-email';
import type { EndpointKind } from './webhook-endpoint.entity';
import type { OutboxEvent } from './events.store';

export type { OutboxEvent };

/**
 * The body of one delivery to one endpoint, serialised here once: every attempt sends these
 * bytes. Own servers get `{ id, type, created_at, data }` with `data` exactly as recorded;
 * Slack and Discord get a message made for them.
 */
export function endpointBody(kind: EndpointKind, deliveryId: string, event: OutboxEvent): string {
  if (kind === 'slack') return JSON.stringify(slackMessage({ type: event.type, data: JSON.parse(event.data) } as ChatEvent));
  if (kind === 'discord') {
    return JSON.stringify(discordMessage({ type: event.type, data: JSON.parse(event.data) } as ChatEvent));
  }
  return `{"id":${JSON.stringify(deliveryId)},"type":${JSON.stringify(event.type)},"created_at":${JSON.stringify(
    event.created_at.toISOString(),
  )},"data":${event.data}}`;
}

/** For a real status change, the post, its board and the change's author; otherwise null. */
export function statusChangeForVoters(event: OutboxEvent): PostStatusChangedData | null {
  if (event.type !== 'post.status_changed') return null;
  const data = JSON.parse(event.data) as PostStatusChangedData;
  return isRealStatusChange(data) ? data : null;
}

/** A voter email as a delivery body: `{ to, subject, text, headers }`. */
export const emailBody = (data: PostStatusChangedData, to: string, unsubscribeUrl: string) =>
  JSON.stringify(voterEmail(data, to, unsubscribeUrl));
