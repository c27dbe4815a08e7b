import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { updateReturning } from '../database/queries';
import { PLANS, isPlan } from '../workspaces/plans';

const MONTH = `date_trunc('month', now() AT TIME ZONE 'UTC')::date`;
const HOUR = `date_trunc('hour', now())`;

/**
 * What a workspace may still send: attempts this calendar month (UTC, every channel, by plan),
 * and voter emails this hour (EMAIL_HOURLY_LIMIT). Each reservation is one read-and-add under a
 * row lock, so processors running side by side never grant the same unit twice.
 */
@Injectable()
export class Quota {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Reserves up to `count` attempts of this month; answers how many were granted. */
  async reserveAttempts(workspaceId: string, plan: string, count: number): Promise<number> {
    const quota = isPlan(plan) ? PLANS[plan].deliveriesPerMonth : 0;
    if (quota <= 0 || count <= 0) return 0;
    return this.reserve('delivery_usage', 'month', MONTH, 'attempts', workspaceId, count, quota);
  }

  /** Reserves up to `count` emails of this hour; answers how many were granted. */
  async reserveEmails(workspaceId: string, count: number): Promise<number> {
    if (count <= 0) return 0;
    return this.reserve('email_usage', 'hour', HOUR, 'sent', workspaceId, count, this.config.emailHourlyLimit);
  }

  private async reserve(
    table: string,
    period: string,
    current: string,
    counter: string,
    workspaceId: string,
    count: number,
    limit: number,
  ): Promise<number> {
    if (limit <= 0) return 0;
    // The row lock of `before` makes read-and-add one step against other processors.
    const add = () =>
      updateReturning<{ granted: number }>(
        this.db,
        `WITH before AS (SELECT ${counter} AS used FROM ${table} WHERE workspace_id = $1 AND ${period} = ${current} FOR UPDATE)
         UPDATE ${table} u SET ${counter} = LEAST(before.used + $2, greatest($3, before.used))
           FROM before
          WHERE u.workspace_id = $1 AND u.${period} = ${current}
         RETURNING greatest(LEAST(before.used + $2, $3) - before.used, 0)::integer AS granted`,
        [workspaceId, count, limit],
      );
    let [row] = await add();
    if (!row) {
      // The period's first send: its row, then the same step.
      await this.db.query(
        `INSERT INTO ${table} (workspace_id, ${period}, ${counter}) VALUES ($1, ${current}, 0) ON CONFLICT DO NOTHING`,
        [workspaceId],
      );
      [row] = await add();
    }
    return row?.granted ?? 0;
  }
}
