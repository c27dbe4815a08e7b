import { Module, OnModuleDestroy, OnModuleInit, Logger } from '@nestjs/common';
import { OutboxCoreModule } from '../../outbox/outbox-core.module';
import { RateLimitModule } from '../../rate-limit/rate-limit.module';
import { WorkspacesModule } from '../../workspaces/workspaces.module';
import { AssetsController } from './assets.controller';
import { FormTokens } from './form-tokens';
import { PageCache } from './page-cache';
import { PageResponses } from './page-response';
import { PageSessions } from './page-sessions';
import { SessionCookies } from './session-cookies';
import { SessionsService } from './sessions.service';
import { SessionsStore } from './sessions.store';
import { SignInService } from './sign-in.service';

const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * What the public site and the dashboard share: sessions and sign-in (their store, their
 * cookies, PageSessions for the guards and sign-in controllers), form tokens, the pages'
 * responses and their cache, the assets.
 */
@Module({
  imports: [RateLimitModule, WorkspacesModule, OutboxCoreModule],
  controllers: [AssetsController],
  providers: [SessionsStore, SessionsService, SignInService, SessionCookies, PageSessions, FormTokens, PageCache, PageResponses],
  exports: [SessionsStore, SessionsService, SignInService, SessionCookies, PageSessions, FormTokens, PageCache, PageResponses, RateLimitModule],
})
export class WebSharedModule implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Sessions');
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(private readonly sessions: SessionsService) {}

  onModuleInit(): void {
    this.purgeTimer = setInterval(() => {
      this.sessions.purgeExpired().catch((error: Error) => this.logger.warn(`Could not purge ended sessions: ${error.message}`));
    }, PURGE_EVERY_MS);
    this.purgeTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.purgeTimer);
  }
}
