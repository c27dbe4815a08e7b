import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { ApiKeysService } from './api-keys.service';
import { ApiKeysStore } from './api-keys.store';

@Module({
  imports: [WorkspacesModule],
  providers: [ApiKeysService, ApiKeysStore],
  exports: [ApiKeysService],
})
export class AuthModule {}
