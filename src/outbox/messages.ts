import { ChatEvent, discordMessage, PostStatusChangedData, slackMessage } from '../notifications/chat-messages';
import { isRealStatusChange } from '../notifications/voter-email';
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

/**
 * A voter email's body as its row keeps it: empty. The email channel renders the message at
 * send, from the event's data as recorded (which the claim reads with the lease) and the
 * recipient, with its unsubscribe link: the row stays small (its writes, the lease and the
 * arrival, are what bound a big mailing's rate), and what it says is still what the event said.
 */
export const VOTER_EMAIL_BODY = '';
