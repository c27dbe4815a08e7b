import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Response } from 'express';
import type { ChorusRequest } from '../common/request-context';
import { routeMetadata } from '../common/route-metadata';
import { WorkspaceRateLimiter } from './workspace-rate-limiter';

/** `@SkipThrottle()`'s key for the one throttler, `default` (the throttler's THROTTLER_SKIP + name). */
export const SKIP_DEFAULT = 'THROTTLER:SKIPdefault';

/**
 * The throttler guard, after the bearer guard: it counts per workspace, at its plan's limit.
 * The throttler's own per-route limits, windows, trackers and storage are not used, so none of
 * them is looked up per request (the base guard's five metadata lookups and awaits); only
 * `@SkipThrottle()` is honoured, looked up once per route.
 */
@Injectable()
export class WorkspaceThrottlerGuard extends ThrottlerGuard {
  private readonly skipped: (context: ExecutionContext) => boolean | undefined;

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly limiter: WorkspaceRateLimiter,
  ) {
    super(options, storage, reflector);
    this.skipped = routeMetadata<boolean>(reflector, SKIP_DEFAULT);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.skipped(context)) return true;
    const req = context.getArgByIndex<ChorusRequest>(0);
    if (req.caller) await this.limiter.apply(req, context.getArgByIndex<Response>(1));
    return true;
  }
}
