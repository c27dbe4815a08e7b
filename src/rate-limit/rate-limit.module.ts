import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type { ExecutionContext } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { ChorusRequest } from '../common/request-context';
import { PLANS, isPlan } from '../workspaces/plans';
import { RateLimitStore } from './rate-limit.store';
import { WorkspaceThrottlerGuard } from './workspace-throttler.guard';

const planLimit = (context: ExecutionContext): number => {
  const plan = context.switchToHttp().getRequest<ChorusRequest>().caller?.plan;
  return isPlan(plan) ? PLANS[plan].requestsPerMinute : 0;
};

@Module({
  providers: [RateLimitStore],
  exports: [RateLimitStore],
})
class RateLimitStoreModule {}

/** Request limits per workspace and plan, and failed-authentication limits per address. */
@Module({
  imports: [
    RateLimitStoreModule,
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStoreModule],
      inject: [APP_CONFIG, RateLimitStore],
      useFactory: (config: AppConfig, store: RateLimitStore) => ({
        throttlers: [{ name: 'default', ttl: config.rateLimitWindowMs, limit: planLimit }],
        storage: store,
      }),
    }),
  ],
  providers: [WorkspaceThrottlerGuard],
  exports: [RateLimitStoreModule, WorkspaceThrottlerGuard],
})
export class RateLimitModule {}
