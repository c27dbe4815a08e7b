import { Injectable, OnModuleInit } from '@nestjs/common';
import { Channel, ClaimedDelivery, EndpointTarget, OutboxChannels, Outcome } from '../outbox/channel';
import { signingHeaders } from './signature';
import { USER_AGENT, WebhookSender } from './webhook-sender';

export const isSuccess = (statusCode: number | null) => statusCode !== null && statusCode >= 200 && statusCode < 300;

/** A signed POST to an own server: the body as fanned out, signed afresh at each attempt. */
@Injectable()
export class WebhookChannel implements Channel, OnModuleInit {
  readonly kind = 'webhook';

  constructor(
    private readonly sender: WebhookSender,
    private readonly channels: OutboxChannels,
  ) {}

  onModuleInit(): void {
    this.channels.register(this);
  }

  async send(delivery: ClaimedDelivery, endpoint: EndpointTarget): Promise<Outcome> {
    const result = await this.sender.post(
      { workspaceId: delivery.workspace_id, kind: 'webhook', url: endpoint.url },
      {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        'Chorus-Event': delivery.event_type,
        'Chorus-Delivery': delivery.id,
        ...signingHeaders(delivery.id, delivery.body, endpoint.secrets, new Date()),
      },
      delivery.body,
    );
    return { ...result, ok: isSuccess(result.statusCode) };
  }
}
