import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { UnroutedApi } from '../common/error.filter';
import type { ChorusRequest } from '../common/request-context';
import { WorkspaceRateLimiter } from '../rate-limit/workspace-rate-limiter';
import { RequestAuthenticator } from './request-authenticator';

/** An /api path no route takes: authenticated and counted against the limit, as a route's guards would. */
@Injectable()
export class UnroutedApiCheck extends UnroutedApi {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly limiter: WorkspaceRateLimiter,
  ) {
    super();
  }

  async check(req: ChorusRequest, res: Response): Promise<void> {
    await this.authenticator.authenticate(req);
    await this.limiter.apply(req, res);
  }
}
