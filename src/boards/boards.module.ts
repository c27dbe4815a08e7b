import { Module } from '@nestjs/common';
import { OutboxCoreModule } from '../outbox/outbox-core.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { BoardsController } from './boards.controller';
import { BoardsService } from './boards.service';
import { BoardsStore } from './boards.store';

@Module({
  imports: [WorkspacesModule, OutboxCoreModule],
  controllers: [BoardsController],
  providers: [BoardsService, BoardsStore],
  exports: [BoardsService],
})
export class BoardsModule {}
