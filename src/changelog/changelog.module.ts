import { Module } from '@nestjs/common';
import { OutboxCoreModule } from '../outbox/outbox-core.module';
import { ChangelogController } from './changelog.controller';
import { ChangelogService } from './changelog.service';
import { ChangelogStore } from './changelog.store';

/** The changelog: entries, their linked posts, subscribers; publishing and its emails. */
@Module({
  imports: [OutboxCoreModule],
  controllers: [ChangelogController],
  providers: [ChangelogService, ChangelogStore],
  exports: [ChangelogService],
})
export class ChangelogModule {}
