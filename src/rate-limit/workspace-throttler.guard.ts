import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { ChorusRequest } from '../common/request-context';
import { WorkspaceRateLimiter } from './workspace-rate-limiter';

/** The throttler guard, after the bearer guard: it counts per workspace, at its plan's limit. */
@Injectable()
export class WorkspaceThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly limiter: WorkspaceRateLimiter,
  ) {
    super(options, storage, reflector);
  }

  protected async handleRequest({ context }: ThrottlerRequest): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<ChorusRequest>();
    if (req.caller) await this.limiter.apply(req, http.getResponse());
    return true;
  }
}
