import { ApiExcludeController } from '@nestjs/swagger';
import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator';
import { pendingMigrations } from '../database/database';
import { Database } from '../database/sql';
import { oldestDue } from '../metrics/metrics.service';
import { RateLimitCounters } from '../rate-limit/counters';

/** A due delivery waiting this long while nothing is being sent means no processor is working. */
export const OUTBOX_STUCK_SECONDS = 300;

/** For load balancers and orchestrators; no key. */
@ApiExcludeController()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly limits: RateLimitCounters,
    private readonly db: Database,
  ) {}

  /** The process is alive and answering. */
  @Public()
  @Get('healthz')
  live() {
    return { status: 'ok' };
  }

  /** Ready for traffic: database reachable and migrated, Redis reachable if configured, outbox moving. */
  @Public()
  @Get('readyz')
  async ready(@Res({ passthrough: true }) res: Response) {
    try {
      return await this.health.check([
        () =>
          this.indicators
            .check('database')
            .attempt(async () => {
              await this.db.rows('SELECT 1');
              return {};
            })
            .withTimeout(2_000),
        () =>
          this.indicators
            .check('migrations')
            .attempt(async () => {
              if ((await pendingMigrations(this.db)).length > 0) throw new Error('migrations are pending: run npm run migration:run');
              return {};
            })
            .withTimeout(3_000),
        () =>
          this.indicators
            .check('redis')
            .attempt(async () => {
              const answers = await this.limits.redisAnswers();
              if (answers === false) throw new Error('Redis does not answer');
              return { configured: answers !== null };
            })
            .withTimeout(2_000),
        () =>
          this.indicators
            .check('outbox')
            .attempt(async () => {
              const { seconds, sending } = await oldestDue(this.db);
              // A long backlog that is being worked through is not stuck: only one nobody works on.
              if (seconds > OUTBOX_STUCK_SECONDS && !sending) {
                throw new Error(`a delivery has waited ${Math.round(seconds)} s and no processor is sending`);
              }
              return { oldest_due_seconds: Math.round(seconds), sending };
            })
            .withTimeout(3_000),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      res.status(503);
      return error.getResponse();
    }
  }
}
