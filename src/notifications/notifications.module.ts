import { Module } from '@nestjs/common';
import { UnsubscribeController } from './unsubscribe.controller';
import { UnsubscribeService } from './unsubscribe.service';

/** What people reach from a notification: the unsubscribe link of voter email. */
@Module({
  controllers: [UnsubscribeController],
  providers: [UnsubscribeService],
})
export class NotificationsModule {}
