import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { BearerGuard } from './auth/bearer.guard';
import { RequestAuthenticator } from './auth/request-authenticator';
import { BodyErrorGuard } from './common/body-error.guard';
import { ErrorFilter, ErrorPages, UnroutedApi } from './common/error.filter';
import { UnroutedApiCheck } from './auth/unrouted-api';
import { PageErrorWriter } from './web/shared/error-pages';
import type { AppConfig } from './config/app-config';
import { CoreModule } from './core.module';
import type { DatabaseTarget } from './database/database';
import { HealthModule } from './health/health.module';
import { MetricsController } from './metrics/metrics.controller';
import { MetricsModule } from './metrics/metrics.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { WorkspaceThrottlerGuard } from './rate-limit/workspace-throttler.guard';
import { NotificationsModule } from './notifications/notifications.module';
import { OutboxModule } from './outbox/outbox.module';
import { AdminModule } from './web/admin/admin.module';
import { WebSharedModule } from './web/shared/web.module';
import { SiteModule } from './web/site/site.module';

/**
 * The HTTP API: the core, health, metrics and logs, and in front of every route (in this order)
 * the bearer and throttler guards, then the body check; idempotency keys on the POST routes.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: DatabaseTarget): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, database),
        MetricsModule,
        RateLimitModule,
        HealthModule,
        NotificationsModule,
        ...(config.runWorker ? [OutboxModule] : []),
        WebSharedModule,
        AdminModule,
        // Its routes take any first path segment (a workspace's slug): orderRoutes (src/common/route-order.ts) puts them after all others.
        SiteModule,
      ],
      controllers: [MetricsController],
      providers: [
        RequestAuthenticator,
        { provide: APP_GUARD, useClass: BearerGuard },
        { provide: APP_GUARD, useExisting: WorkspaceThrottlerGuard },
        { provide: APP_GUARD, useClass: BodyErrorGuard },
        { provide: UnroutedApi, useClass: UnroutedApiCheck },
        { provide: ErrorPages, useClass: PageErrorWriter },
        { provide: APP_FILTER, useClass: ErrorFilter },
      ],
    };
  }
}
