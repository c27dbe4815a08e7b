import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { BearerGuard } from './auth/bearer.guard';
import { RequestAuthenticator } from './auth/request-authenticator';
import { BodyErrorInterceptor } from './common/body-error.interceptor';
import { ErrorFilter } from './common/error.filter';
import type { AppConfig } from './config/app-config';
import { CoreModule } from './core.module';
import type { DatabaseTarget } from './database/database';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { WorkspaceThrottlerGuard } from './rate-limit/workspace-throttler.guard';
import { OutboxModule } from './webhooks/outbox.module';

/** The HTTP API: the core, and in front of it (in this order) the bearer and throttler guards. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: DatabaseTarget): DynamicModule {
    return {
      module: AppModule,
      imports: [CoreModule.forRoot(config, database), RateLimitModule, ...(config.runWorker ? [OutboxModule] : [])],
      providers: [
        RequestAuthenticator,
        { provide: APP_GUARD, useClass: BearerGuard },
        { provide: APP_GUARD, useExisting: WorkspaceThrottlerGuard },
        { provide: APP_FILTER, useClass: ErrorFilter },
        { provide: APP_INTERCEPTOR, useClass: BodyErrorInterceptor },
      ],
    };
  }
}
