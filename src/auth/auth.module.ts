import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeysService } from './api-keys.service';
import { BearerGuard } from './bearer.guard';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity]), WorkspacesModule],
  providers: [ApiKeysService, { provide: APP_GUARD, useClass: BearerGuard }],
  exports: [ApiKeysService],
})
export class AuthModule {}
