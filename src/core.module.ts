import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from './auth/auth.module';
import { BoardsModule } from './boards/boards.module';
import { ChangelogModule } from './changelog/changelog.module';
import { CommentsModule } from './comments/comments.module';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { ModerationModule } from './moderation/moderation.module';
import { DatabaseModule } from './database/database.module';
import type { DatabaseTarget } from './database/database';
import { PostsModule } from './posts/posts.module';
import { TransferModule } from './transfer/transfer.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WorkspacesModule } from './workspaces/workspaces.module';

/** Configuration, database and the feature modules: what the API, the worker and the CLI share. */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, database: DatabaseTarget): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot(config, database),
        DatabaseModule.forRoot(config, database),
        IdempotencyModule,
        WorkspacesModule,
        AuthModule,
        BoardsModule,
        PostsModule,
        CommentsModule,
        ModerationModule,
        WebhooksModule,
        ChangelogModule,
        TransferModule,
      ],
      exports: [
        ConfigModule,
        WorkspacesModule,
        AuthModule,
        BoardsModule,
        PostsModule,
        CommentsModule,
        ModerationModule,
        WebhooksModule,
        ChangelogModule,
        TransferModule,
      ],
    };
  }
}
