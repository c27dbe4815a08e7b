import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { RateLimitCounters } from './counters';
import { WorkspaceRateLimiter } from './workspace-rate-limiter';
import { WorkspaceThrottlerGuard } from './workspace-throttler.guard';

/**
 * Request limits per workspace and plan, and failed-authentication limits per address. The
 * counters live in RateLimitCounters (Redis or this process); the throttler's own storage is unused.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => [{ name: 'default', ttl: config.rateLimitWindowMs, limit: 1 }],
    }),
  ],
  providers: [RateLimitCounters, WorkspaceRateLimiter, WorkspaceThrottlerGuard],
  exports: [RateLimitCounters, WorkspaceRateLimiter, WorkspaceThrottlerGuard],
})
export class RateLimitModule {}
