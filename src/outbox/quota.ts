import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { QuotaStore } from './quota.store';

/**
 * What a workspace may still send: attempts this calendar month (UTC, every channel, by plan),
 * and voter emails this hour (EMAIL_HOURLY_LIMIT). Processors running side by side never grant
 * the same unit twice (see QuotaStore).
 */
@Injectable()
export class Quota {
  constructor(
    private readonly store: QuotaStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Reserves up to `count` attempts of this month for a workspace on `plan`; answers how many
   * were granted. (The outbox reserves its endpoint deliveries' within its claims.)
   */
  async reserveAttempts(workspaceId: string, plan: string, count: number): Promise<number> {
    return (await this.reserveMonth(workspaceId, plan, count)).granted;
  }

  /** `reserveAttempts`, also answering the month the attempts were taken from (for a refund). */
  reserveMonth(workspaceId: string, plan: string, count: number): Promise<{ granted: number; month: string | null }> {
    if (count <= 0) return Promise.resolve({ granted: 0, month: null });
    return this.store.reserveMonth(workspaceId, plan, count);
  }

  /** Gives back attempts reserved in `month` (as the reservation answered it) and not made. */
  async refundAttempts(workspaceId: string, month: string, count: number): Promise<void> {
    if (count > 0) await this.store.refund(workspaceId, month, count);
  }

  /** Reserves up to `count` emails of this hour; answers how many were granted. */
  async reserveEmails(workspaceId: string, count: number): Promise<number> {
    const limit = this.config.emailHourlyLimit;
    if (count <= 0 || limit <= 0) return 0;
    return this.store.reserveEmails(workspaceId, count, limit);
  }
}
