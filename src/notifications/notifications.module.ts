import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { UnsubscribeController } from './unsubscribe.controller';
import { UnsubscribeService } from './unsubscribe.service';

/** What people reach from a notification: the unsubscribe link of voter email. */
@Module({
  imports: [WorkspacesModule],
  controllers: [UnsubscribeController],
  providers: [UnsubscribeService],
})
export class NotificationsModule {}
