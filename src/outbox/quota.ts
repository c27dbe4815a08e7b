import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { isDistributed } from '../database/distribution';
import { inPreparedTransaction, runStatements, sqlInt, sqlText, updateReturning } from '../database/queries';
import { isPlan, PLAN_NAMES, PLANS } from '../workspaces/plans';

const MONTH = `date_trunc('month', now() AT TIME ZONE 'UTC')::date`;
const HOUR = `date_trunc('hour', now())`;
/** Each plan's attempts a month, as a table. */
const PLAN_QUOTAS = `(VALUES ${PLAN_NAMES.map((plan) => `(${sqlText(plan)}, ${sqlInt(PLANS[plan].deliveriesPerMonth)})`).join(', ')})`;

/**
 * The lock that every claim of the outbox takes (so that what is in flight is counted exactly),
 * and every reservation of the month's attempts: one reservation at a time, each reading what
 * the one before left.
 */
export const CLAIM_LOCK = 7_302_318_455_120_911;

/**
 * The claim lock as a statement. On Citus (`workspaceId` given) a claim and a reservation take
 * one workspace's lock: every cap it counts (an endpoint's, the workspace's mail, the
 * workspace's own) and the month's usage belong to that workspace, so claims of different
 * workspaces need not wait for each other, and each is a single-shard statement.
 */
export const claimLock = (workspaceId: string | null): string =>
  workspaceId === null
    ? `SELECT pg_advisory_xact_lock(${sqlInt(CLAIM_LOCK)})`
    : `SELECT pg_advisory_xact_lock(hashtextextended(${sqlText(workspaceId)}, ${sqlInt(CLAIM_LOCK)}))`;

/**
 * What a workspace may still send: attempts this calendar month (UTC, every channel, by plan),
 * and voter emails this hour (EMAIL_HOURLY_LIMIT). Processors running side by side never grant
 * the same unit twice: the month's attempts are reserved under CLAIM_LOCK, the hour's emails in
 * one read-and-add under a row lock.
 */
@Injectable()
export class Quota {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Reserves up to `count` attempts of this month for a workspace on `plan`; answers how many
   * were granted. (The outbox reserves its endpoint deliveries' within its claims:
   * `monthlyReservation`.)
   */
  async reserveAttempts(workspaceId: string, plan: string, count: number): Promise<number> {
    return (await this.reserveMonth(workspaceId, plan, count)).granted;
  }

  /** `reserveAttempts`, also answering the month the attempts were taken from (for a refund). */
  async reserveMonth(workspaceId: string, plan: string, count: number): Promise<{ granted: number; month: string | null }> {
    if (count <= 0) return { granted: 0, month: null };
    if (await isDistributed(this.db)) {
      // Two round trips: the lock and the month (on the coordinator), then the reservation (on the workspace's node) and the commit.
      return inPreparedTransaction(this.db, async (tx) => {
        const [, [{ month }]] = (await tx.batch([claimLock(workspaceId), THIS_MONTH])) as [unknown, { month: string }[]];
        const steps = monthReservation(workspaceId, plan, count, month);
        if (steps.length === 0) return { granted: 0, month: null };
        const [, [row]] = (await tx.batch(steps, true)) as [unknown, { granted: number }[]];
        return { granted: row?.granted ?? 0, month };
      });
    }
    const [row] = await runStatements<{ granted: number; month: string }>(
      this.db,
      `${claimLock(null)};
       WITH wanted AS (SELECT ${sqlText(workspaceId)}::uuid AS workspace_id, ${sqlText(plan)} AS plan, true AS counted
                         FROM generate_series(1, ${sqlInt(count)})),
       ${monthlyReservation('wanted')}
       SELECT granted, month FROM granted`,
    );
    return { granted: row?.granted ?? 0, month: row?.month ?? null };
  }

  /** Gives back attempts reserved in `month` (as the reservation answered it) and not made. */
  async refundAttempts(workspaceId: string, month: string, count: number): Promise<void> {
    if (count <= 0) return;
    await this.db.query(
      `UPDATE delivery_usage SET attempts = greatest(attempts - $3, 0) WHERE workspace_id = $1 AND month = $2::date`,
      [workspaceId, month, count],
    );
  }

  /** Reserves up to `count` emails of this hour; answers how many were granted. */
  async reserveEmails(workspaceId: string, count: number): Promise<number> {
    const limit = this.config.emailHourlyLimit;
    if (count <= 0 || limit <= 0) return 0;
    // The row lock of `before` makes read-and-add one step against other processors.
    const add = () =>
      updateReturning<{ granted: number }>(
        this.db,
        `WITH before AS (SELECT sent AS used FROM email_usage WHERE workspace_id = $1 AND hour = ${HOUR} FOR UPDATE)
         UPDATE email_usage u SET sent = LEAST(before.used + $2, greatest($3, before.used))
           FROM before
          WHERE u.workspace_id = $1 AND u.hour = ${HOUR}
         RETURNING greatest(LEAST(before.used + $2, $3) - before.used, 0)::integer AS granted`,
        [workspaceId, count, limit],
      );
    let [row] = await add();
    if (!row) {
      // The hour's first email: its row, then the same step.
      await this.db.query(`INSERT INTO email_usage (workspace_id, hour, sent) VALUES ($1, ${HOUR}, 0) ON CONFLICT DO NOTHING`, [
        workspaceId,
      ]);
      [row] = await add();
    }
    return row?.granted ?? 0;
  }
}

/**
 * Common table expressions, for a statement that holds CLAIM_LOCK, that reserve one attempt of
 * the month for each row of `rows` (a table expression with `workspace_id`, `plan` and
 * `counted`) that is `counted`, as far as each workspace's plan allows; they end with
 * `granted (workspace_id, granted, month)`, one row per workspace with rows counted. The usage
 * read is the latest (the lock orders reservations; the row lock, refunds), and its row is
 * created at the month's first reservation.
 */
export const monthlyReservation = (rows: string) => `
  reserving AS (
    SELECT r.workspace_id, count(*)::integer AS n, min(q.attempts)::integer AS quota
      FROM ${rows} r LEFT JOIN ${PLAN_QUOTAS} AS q (plan, attempts) ON q.plan = r.plan
     WHERE r.counted GROUP BY r.workspace_id
  ),
  usage AS (
    SELECT u.workspace_id, u.attempts FROM delivery_usage u JOIN reserving r ON r.workspace_id = u.workspace_id
     WHERE u.month = ${MONTH} FOR UPDATE OF u
  ),
  used AS (
    SELECT r.workspace_id, r.n, coalesce(r.quota, 0) AS quota, coalesce(u.attempts, 0) AS before
      FROM reserving r LEFT JOIN usage u ON u.workspace_id = r.workspace_id
  ),
  reserved AS (
    INSERT INTO delivery_usage AS u (workspace_id, month, attempts)
    SELECT workspace_id, ${MONTH}, LEAST(before + n, greatest(quota, before)) FROM used WHERE quota > 0
    ON CONFLICT (workspace_id, month) DO UPDATE SET attempts = EXCLUDED.attempts
  ),
  granted AS (
    SELECT workspace_id, greatest(LEAST(before + n, quota) - before, 0)::integer AS granted, ${MONTH}::text AS month FROM used
  )`;

/** This month (UTC) as `YYYY-MM-DD`, the month reservations count in: on Citus a statement of the coordinator alone. */
export const THIS_MONTH = `SELECT ${MONTH}::text AS month`;

/**
 * `monthlyReservation` on Citus, for one workspace, as two single-shard statements (SQL texts,
 * for a round trip that carries them with others), in a transaction that holds the workspace's
 * claim lock: the month's row, made at its first reservation; then read-and-add under its row
 * lock, answering `granted`. `month` as THIS_MONTH read it in the same transaction (Citus takes
 * no stable function in RETURNING). None when nothing is asked for or the plan has no quota.
 */
export function monthReservation(workspaceId: string, plan: string, count: number, month: string): string[] {
  const quota = isPlan(plan) ? PLANS[plan].deliveriesPerMonth : 0;
  if (count <= 0 || quota <= 0) return [];
  const [ws, m] = [`${sqlText(workspaceId)}::uuid`, `${sqlText(month)}::date`];
  return [
    `INSERT INTO delivery_usage (workspace_id, month, attempts) VALUES (${ws}, ${m}, 0) ON CONFLICT DO NOTHING`,
    `UPDATE delivery_usage u SET attempts = LEAST(b.before + ${sqlInt(count)}, greatest(${sqlInt(quota)}, b.before))
       FROM (SELECT attempts AS before FROM delivery_usage WHERE workspace_id = ${ws} AND month = ${m} FOR UPDATE) b
      WHERE u.workspace_id = ${ws} AND u.month = ${m}
      RETURNING greatest(LEAST(b.before + ${sqlInt(count)}, ${sqlInt(quota)}) - b.before, 0)::integer AS granted`,
  ];
}
