import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { DiscordChannel, SlackChannel } from '../notifications/chat.channels';
import { EmailChannel } from '../notifications/email.channel';
import { Mailer } from '../notifications/mailer';
import { WebhookChannel } from '../webhooks/webhook.channel';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { OUTBOX_CHANNELS } from './channel';
import { FanOut } from './fan-out';
import { Lease } from './lease';
import { OutboxProcessor } from './outbox.processor';
import { Recorder } from './recorder';
import { Scheduler } from './scheduler';

const CHANNELS = [WebhookChannel, SlackChannel, DiscordChannel, EmailChannel];

/**
 * The outbox processor (webhooks, Slack, Discord and voter email): in the API process
 * (RUN_WORKER=true) or alone (`npm run start:worker`). fan-out → scheduler → channel → recorder.
 * The HTTP channels, their sender and the quota come from WebhooksModule (endpoint tests use
 * them too); email is the outbox's own.
 */
@Module({
  imports: [WebhooksModule, ScheduleModule.forRoot()],
  providers: [
    OutboxProcessor,
    FanOut,
    Scheduler,
    Recorder,
    Lease,
    Mailer,
    EmailChannel,
    { provide: OUTBOX_CHANNELS, useFactory: (...channels) => channels, inject: CHANNELS },
  ],
  exports: [OutboxProcessor],
})
export class OutboxModule {}
