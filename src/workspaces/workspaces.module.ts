import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CallerCache } from '../auth/caller-cache';
import { PersonEntity } from './person.entity';
import { SsoService } from './sso.service';
import { SsoTokenUses } from './sso-token-uses.store';
import { WorkspaceEntity } from './workspace.entity';
import { WorkspacesService } from './workspaces.service';

@Module({
  imports: [TypeOrmModule.forFeature([WorkspaceEntity, PersonEntity])],
  // The callers cache sits here because plan changes, as well as key revocations, clear it.
  providers: [WorkspacesService, CallerCache, SsoService, SsoTokenUses],
  exports: [WorkspacesService, CallerCache, SsoService],
})
export class WorkspacesModule {}
