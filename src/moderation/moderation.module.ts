import { Module } from '@nestjs/common';
import { CommentsModule } from '../comments/comments.module';
import { PostsModule } from '../posts/posts.module';
import { ModerationController } from './moderation.controller';
import { ModerationService } from './moderation.service';
import { ModerationStore } from './moderation.store';

/** The moderation queue and approve/reject (the API; the dashboard's page calls the same service). */
@Module({
  imports: [PostsModule, CommentsModule],
  controllers: [ModerationController],
  providers: [ModerationService, ModerationStore],
  exports: [ModerationService],
})
export class ModerationModule {}
