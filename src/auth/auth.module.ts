import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeysService } from './api-keys.service';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity]), WorkspacesModule],
  providers: [ApiKeysService],
  exports: [ApiKeysService],
})
export class AuthModule {}
