import { Module } from '@nestjs/common';
import { CallerCache } from '../auth/caller-cache';
import { OutboxCoreModule } from '../outbox/outbox-core.module';
import { SsoService } from './sso.service';
import { SsoTokenUses } from './sso-token-uses.store';
import { WorkspacesService } from './workspaces.service';
import { WorkspacesStore } from './workspaces.store';

@Module({
  imports: [OutboxCoreModule],
  // The callers cache sits here because plan changes, as well as key revocations, clear it.
  providers: [WorkspacesService, WorkspacesStore, CallerCache, SsoService, SsoTokenUses],
  exports: [WorkspacesService, CallerCache, SsoService],
})
export class WorkspacesModule {}
