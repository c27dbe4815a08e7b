import { HttpModule } from '@nestjs/axios';
import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { OutboxProcessor } from './outbox.processor';
import { WebhookSender } from './webhook-sender';
import { WebhooksModule } from './webhooks.module';

/** The outbox processor: in the API process (RUN_WORKER=true) or alone (`npm run start:worker`). */
@Module({
  imports: [WebhooksModule, HttpModule, ScheduleModule.forRoot()],
  providers: [OutboxProcessor, WebhookSender],
  exports: [OutboxProcessor],
})
export class OutboxModule {}
