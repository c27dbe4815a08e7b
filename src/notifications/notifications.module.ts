import { Module } from '@nestjs/common';
import { OutboxCoreModule } from '../outbox/outbox-core.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { DiscordChannel, SlackChannel } from './chat.channels';
import { EmailChannel } from './email.channel';
import { Mailer } from './mailer';
import { UnsubscribeController } from './unsubscribe.controller';
import { UnsubscribeService } from './unsubscribe.service';

/**
 * Notifications: the Slack, Discord and email channels of the outbox (registered with its core;
 * the chat channels post through the webhooks' sender), the mail transport, and what people
 * reach from a notification: the unsubscribe link of voter email.
 */
@Module({
  imports: [OutboxCoreModule, WebhooksModule, WorkspacesModule],
  controllers: [UnsubscribeController],
  providers: [UnsubscribeService, Mailer, SlackChannel, DiscordChannel, EmailChannel],
  exports: [Mailer],
})
export class NotificationsModule {}
