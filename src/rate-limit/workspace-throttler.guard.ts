import { Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerRequest } from '@nestjs/throttler';
import type { ChorusRequest } from '../common/request-context';
import { rateLimited, setRateLimitHeaders } from './rate-limit.headers';

/**
 * The plan's requests per window, per workspace, after the bearer guard has named the
 * workspace. The plan is read with the key on every request, so a plan change applies at once.
 * Every answer carries the X-RateLimit headers; a refused request is not counted.
 */
@Injectable()
export class WorkspaceThrottlerGuard extends ThrottlerGuard {
  protected async handleRequest({ context, limit, ttl, blockDuration, throttler }: ThrottlerRequest): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ChorusRequest>();
    if (!req.caller) return true; // a public route: the bearer guard let it through without a key
    const record = await this.storageService.increment(
      `ws:${req.caller.workspaceId}`,
      ttl,
      limit,
      blockDuration,
      throttler.name ?? 'default',
    );
    setRateLimitHeaders(context.switchToHttp().getResponse(), limit, record.totalHits, record.timeToExpire);
    if (record.isBlocked) {
      const per = ttl === 60_000 ? 'minute' : `${ttl / 1000} seconds`;
      throw rateLimited(record.timeToBlockExpire, `This workspace's plan allows ${limit} requests per ${per}.`);
    }
    return true;
  }
}
