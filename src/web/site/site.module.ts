import { Module } from '@nestjs/common';
import { BoardsModule } from '../../boards/boards.module';
import { ChangelogModule } from '../../changelog/changelog.module';
import { CommentsModule } from '../../comments/comments.module';
import { PostsModule } from '../../posts/posts.module';
import { WorkspacesModule } from '../../workspaces/workspaces.module';
import { WebSharedModule } from '../shared/web.module';
import { RobotsController } from './robots.controller';
import { WidgetController } from '../widget/widget.controller';
import { SiteActionsController } from './site-actions.controller';
import { SiteChangelogController } from './site-changelog.controller';
import { SitePageViews } from './site-page-views';
import { SitePagesController } from './site-pages.controller';
import { SitePaths } from './site-paths';
import { SiteSignInController } from './site-sign-in.controller';
import { SiteGuard } from './site.guard';
import { SiteService } from './site.service';
import { VisitorActionsService } from './visitor-actions.service';

/**
 * The public site behind every board and post `url`: pages anyone reads, and votes, posts and
 * comments by signed-in visitors, through the services the API uses. Its controllers are
 * registered in this order on purpose: fixed paths (`sign-in`, `roadmap`, `changelog`) before the ones that
 * take any board's slug.
 */
@Module({
  imports: [WebSharedModule, WorkspacesModule, BoardsModule, PostsModule, CommentsModule, ChangelogModule],
  controllers: [WidgetController, RobotsController, SiteSignInController, SiteChangelogController, SiteActionsController, SitePagesController],
  providers: [SiteService, SitePaths, SitePageViews, SiteGuard, VisitorActionsService],
})
export class SiteModule {}
