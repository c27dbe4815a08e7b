import { Inject, Injectable } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { AppError } from '../common/app-error';
import type { Caller, ChorusRequest } from '../common/request-context';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { rateLimited, wholeSeconds } from '../rate-limit/rate-limit.headers';
import { RateLimitStore } from '../rate-limit/rate-limit.store';
import { ApiKeysService } from './api-keys.service';

/** The client's address; for IPv6 its /64, since one host can use a whole /64. */
function clientNetwork(ip: string | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return 'unknown';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

/**
 * Authenticates an API request, and slows down key guessing: a client address that failed
 * AUTH_FAILURE_LIMIT times within the window gets 429 without its key being looked at.
 */
@Injectable()
export class RequestAuthenticator {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly limits: RateLimitStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async authenticate(req: ChorusRequest): Promise<Caller> {
    const failures = `authfail:${clientNetwork(req.ip)}`;
    const limit = this.config.authFailureLimit;
    const before = await this.limits.peek(failures, limit);
    if (before.count >= limit) throw this.tooManyFailures(before.resetInMs);
    try {
      req.caller = await this.keys.authorize(req.headers.authorization);
      return req.caller;
    } catch (error) {
      if (error instanceof AppError && error.code === 'unauthorized') {
        const after = await this.limits.take(failures, limit);
        if (!after.allowed) throw this.tooManyFailures(after.resetInMs);
      }
      throw error;
    }
  }

  private tooManyFailures(resetInMs: number): AppError {
    return rateLimited(wholeSeconds(resetInMs), 'Too many failed authentication attempts from this address.');
  }
}
