import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { ChangelogModule } from '../changelog/changelog.module';
import { byEngine } from '../database/engine';
import { NotificationsModule } from '../notifications/notifications.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { CitusClaimsStore, ClaimsStore } from './claims.store';
import { FanOut } from './fan-out';
import { Lease } from './lease';
import { OutboxCoreModule } from './outbox-core.module';
import { OutboxProcessor } from './outbox.processor';
import { Recorder } from './recorder';
import { Scheduler } from './scheduler';
import { VoterMailingsStore } from './voter-mailings.store';

/**
 * The outbox processor (webhooks, Slack, Discord and voter email): in the API process
 * (RUN_WORKER=true) or alone (`npm run start:worker`). fan-out → scheduler → channel → recorder,
 * over the core's stores. The channels come from the modules that provide them (WebhooksModule:
 * own servers; NotificationsModule: Slack, Discord and email), registered in the core.
 */
@Module({
  imports: [OutboxCoreModule, WebhooksModule, NotificationsModule, ChangelogModule, ScheduleModule.forRoot()],
  providers: [
    OutboxProcessor,
    FanOut,
    Scheduler,
    Recorder,
    Lease,
    VoterMailingsStore,
    ...byEngine(ClaimsStore, { postgres: ClaimsStore, citus: CitusClaimsStore }),
  ],
  exports: [OutboxProcessor],
})
export class OutboxModule {}
