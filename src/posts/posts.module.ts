import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BoardsModule } from '../boards/boards.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { PostEntity } from './post.entity';
import { PostsController } from './posts.controller';
import { PostsService } from './posts.service';
import { StatusChangeEntity } from './status-change.entity';
import { VoteEntity } from './vote.entity';

@Module({
  imports: [
    TypeOrmModule.forFeature([PostEntity, VoteEntity, StatusChangeEntity]),
    BoardsModule,
    WorkspacesModule,
    WebhooksModule,
  ],
  controllers: [PostsController],
  providers: [PostsService],
  exports: [PostsService],
})
export class PostsModule {}
