import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { Mailer } from '../notifications/mailer';
import { OutboxProcessor } from './outbox.processor';
import { WebhooksModule } from './webhooks.module';

/** The outbox processor (webhooks, Slack, Discord and voter email): in the API process (RUN_WORKER=true) or alone (`npm run start:worker`). */
@Module({
  imports: [WebhooksModule, ScheduleModule.forRoot()],
  providers: [OutboxProcessor, Mailer],
  exports: [OutboxProcessor],
})
export class OutboxModule {}
