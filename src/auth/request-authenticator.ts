import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import type { Caller, ChorusRequest } from '../common/request-context';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { clientNetwork } from '../rate-limit/client-network';
import { rateLimited, wholeSeconds } from '../rate-limit/rate-limit.headers';
import { RateLimitCounters } from '../rate-limit/counters';
import { ApiKeysService } from './api-keys.service';

/**
 * Authenticates an API request, and slows down key guessing: once a client address has failed
 * AUTH_FAILURE_LIMIT times within the window, its further failures get 429 instead of 401.
 * A valid key is always served, whatever its address did: behind a load balancer every client
 * may share one address, and one client's wrong keys must not lock the others out. A key is 40
 * random base62 characters (238 bits), so the limit is not what keeps keys from being guessed;
 * it keeps a guessing client from being told anything quickly.
 */
@Injectable()
export class RequestAuthenticator {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly limits: RateLimitCounters,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async authenticate(req: ChorusRequest): Promise<Caller> {
    try {
      req.caller = await this.keys.authorize(req.headers.authorization);
      return req.caller;
    } catch (error) {
      if (error instanceof AppError && error.code === 'unauthorized') {
        const failures = await this.limits.take(`authfail:${clientNetwork(req.ip)}`, this.config.authFailureLimit);
        if (!failures.allowed) throw this.tooManyFailures(failures.resetInMs);
      }
      throw error;
    }
  }

  private tooManyFailures(resetInMs: number): AppError {
    return rateLimited(wholeSeconds(resetInMs), 'Too many failed authentication attempts from this address.');
  }
}
