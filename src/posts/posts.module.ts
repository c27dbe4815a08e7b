import { Module } from '@nestjs/common';
import { BoardsModule } from '../boards/boards.module';
import { byEngine } from '../database/engine';
import { OutboxCoreModule } from '../outbox/outbox-core.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { PostsController } from './posts.controller';
import { PostsService } from './posts.service';
import { CitusPostsStore, PostsStore } from './posts.store';

@Module({
  imports: [BoardsModule, WorkspacesModule, OutboxCoreModule],
  controllers: [PostsController],
  providers: [PostsService, ...byEngine(PostsStore, { postgres: PostsStore, citus: CitusPostsStore })],
  exports: [PostsService],
})
export class PostsModule {}
