import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { PostsModule } from '../posts/posts.module';
import { OutboxCoreModule } from '../outbox/outbox-core.module';
import { CommentsController } from './comments.controller';
import { CommentsService } from './comments.service';
import { CommentsStore } from './comments.store';

@Module({
  imports: [PostsModule, WorkspacesModule, OutboxCoreModule],
  controllers: [CommentsController],
  providers: [CommentsService, CommentsStore],
  exports: [CommentsService],
})
export class CommentsModule {}
