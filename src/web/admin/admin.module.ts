import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module';
import { BoardsModule } from '../../boards/boards.module';
import { ChangelogModule } from '../../changelog/changelog.module';
import { CommentsModule } from '../../comments/comments.module';
import { ModerationModule } from '../../moderation/moderation.module';
import { PostsModule } from '../../posts/posts.module';
import { WebhooksModule } from '../../webhooks/webhooks.module';
import { WorkspacesModule } from '../../workspaces/workspaces.module';
import { WebSharedModule } from '../shared/web.module';
import { AdminBoardsController } from './admin-boards.controller';
import { AdminChangelogController } from './admin-changelog.controller';
import { AdminDevelopersController } from './admin-developers.controller';
import { AdminMembersController } from './admin-members.controller';
import { AdminModerationController } from './admin-moderation.controller';
import { AdminWidgetController } from './admin-widget.controller';
import { AdminPaths } from './admin-paths';
import { AdminPostsController } from './admin-posts.controller';
import { AdminSignInController } from './admin-sign-in.controller';
import { AdminGuard } from './admin.guard';
import { DashboardSignIns } from './dashboard-sign-ins.service';

/**
 * The dashboard behind every `admin_url`: a workspace's members answer posts, move them along,
 * merge them, and run boards, keys, endpoints and members, through the services the API uses.
 */
@Module({
  imports: [WebSharedModule, WorkspacesModule, AuthModule, BoardsModule, PostsModule, CommentsModule, WebhooksModule, ChangelogModule, ModerationModule],
  controllers: [AdminSignInController, AdminChangelogController, AdminPostsController, AdminBoardsController, AdminDevelopersController, AdminMembersController, AdminModerationController, AdminWidgetController],
  providers: [AdminPaths, AdminGuard, DashboardSignIns],
})
export class AdminModule {}
