import { Module } from '@nestjs/common';
import { BoardsModule } from '../boards/boards.module';
import { ChangelogModule } from '../changelog/changelog.module';
import { CommentsModule } from '../comments/comments.module';
import { OutboxCoreModule } from '../outbox/outbox-core.module';
import { PostsModule } from '../posts/posts.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { ExportController } from './export.controller';
import { ExportService } from './export.service';
import { ImportService } from './import.service';
import { TransferStore } from './transfer.store';

/**
 * Moving in and out: the export (CLI and API) and the import (CLI) from a Chorus export, CSV
 * files or Canny's API. Imports write through the owners' services (boards, people, posts, votes,
 * comments, changelog entries) and remember what each source record became in imported_records.
 */
@Module({
  imports: [WorkspacesModule, BoardsModule, PostsModule, CommentsModule, ChangelogModule, OutboxCoreModule],
  controllers: [ExportController],
  providers: [TransferStore, ExportService, ImportService],
  exports: [ExportService, ImportService],
})
export class TransferModule {}
