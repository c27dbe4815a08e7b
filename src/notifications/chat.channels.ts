import { Injectable, OnModuleInit } from '@nestjs/common';
import { Channel, ClaimedDelivery, EndpointTarget, OutboxChannels, Outcome } from '../outbox/channel';
import { isSuccess } from '../webhooks/webhook.channel';
import { USER_AGENT, WebhookSender } from '../webhooks/webhook-sender';
import { discordWebhookUrl } from './chat-messages';

const HEADERS = { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT };

/** A message to a Slack incoming webhook. */
@Injectable()
export class SlackChannel implements Channel, OnModuleInit {
  readonly kind = 'slack';

  constructor(
    private readonly sender: WebhookSender,
    private readonly channels: OutboxChannels,
  ) {}

  onModuleInit(): void {
    this.channels.register(this);
  }

  async send(delivery: ClaimedDelivery, endpoint: EndpointTarget): Promise<Outcome> {
    const result = await this.sender.post({ workspaceId: delivery.workspace_id, kind: 'slack', url: endpoint.url }, HEADERS, delivery.body);
    return { ...result, ok: isSuccess(result.statusCode) };
  }
}

/** A message to a Discord webhook, with `?wait=true` so that a refused message is an error, not a 204. */
@Injectable()
export class DiscordChannel implements Channel, OnModuleInit {
  readonly kind = 'discord';

  constructor(
    private readonly sender: WebhookSender,
    private readonly channels: OutboxChannels,
  ) {}

  onModuleInit(): void {
    this.channels.register(this);
  }

  async send(delivery: ClaimedDelivery, endpoint: EndpointTarget): Promise<Outcome> {
    const target = { workspaceId: delivery.workspace_id, kind: 'discord' as const, url: discordWebhookUrl(endpoint.url) };
    const result = await this.sender.post(target, HEADERS, delivery.body);
    return { ...result, ok: isSuccess(result.statusCode) };
  }
}
