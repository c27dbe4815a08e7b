import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { ChorusRequest } from '../common/request-context';
import { PLANS, isPlan } from '../workspaces/plans';
import { rateLimited, setRateLimitHeaders, wholeSeconds } from './rate-limit.headers';
import { RateLimitCounters } from './counters';

/**
 * The plan's requests per window for the authenticated workspace. The plan comes with the key
 * on every request, so a plan change applies at once. A refused request is not counted.
 */
@Injectable()
export class WorkspaceRateLimiter {
  constructor(private readonly store: RateLimitCounters) {}

  async apply(req: ChorusRequest, res: Response): Promise<void> {
    const caller = req.caller!;
    const limit = isPlan(caller.plan) ? PLANS[caller.plan].requestsPerMinute : 0;
    const tally = await this.store.take(`ws:${caller.workspaceId}`, limit);
    setRateLimitHeaders(res, limit, tally.count, tally.resetInMs);
    if (!tally.allowed) {
      const windowMs = this.store.windowMs;
      const per = windowMs === 60_000 ? 'minute' : `${windowMs / 1000} seconds`;
      throw rateLimited(wholeSeconds(tally.resetInMs), `This workspace's plan allows ${limit} requests per ${per}.`);
    }
  }
}
