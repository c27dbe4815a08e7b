import { Injectable } from '@nestjs/common';
import { Database, statement, Tx } from '../database/sql';
import { PLAN_NAMES, PLANS } from '../workspaces/plans';
import { readAtCommit } from './commit';

const MONTH = `date_trunc('month', now() AT TIME ZONE 'UTC')::date`;
const HOUR = `date_trunc('hour', now())`;

/**
 * The lock that every claim of the outbox takes (so that what is in flight is counted exactly),
 * and every reservation of the month's attempts: one reservation at a time, each reading what
 * the one before left. On Citus a claim and a reservation take one workspace's lock (its id
 * hashed with this key): every cap it counts and the month's usage belong to that workspace, so
 * claims of different workspaces need not wait for each other.
 */
export const CLAIM_LOCK = statement('outbox_claim_lock', `SELECT pg_advisory_xact_lock(7302318455120911)`);
export const WORKSPACE_CLAIM_LOCK = statement(
  'outbox_workspace_claim_lock',
  `SELECT pg_advisory_xact_lock(hashtextextended($1::text, 7302318455120911))`,
);

/** This month (UTC) as `YYYY-MM-DD`, the month reservations count in: on Citus a statement of the coordinator alone. */
export const THIS_MONTH = statement('outbox_this_month', `SELECT ${MONTH}::text AS month`);

/** Each plan's attempts a month, as the parameters of `monthlyReservation`. */
export const PLAN_QUOTAS = {
  plans: PLAN_NAMES as string[],
  attempts: PLAN_NAMES.map((plan) => PLANS[plan].deliveriesPerMonth as number),
};

/** A plan's attempts a month (none for a plan unknown). */
export const quotaOf = (plan: string): number => {
  const i = PLAN_QUOTAS.plans.indexOf(plan);
  return i < 0 ? 0 : PLAN_QUOTAS.attempts[i];
};

const OPEN_MONTH = statement(
  'quota_open_month',
  `INSERT INTO delivery_usage (workspace_id, month, attempts) VALUES ($1, $2::date, 0) ON CONFLICT DO NOTHING`,
);
const ADD_ATTEMPTS = statement(
  'quota_add_attempts',
  `UPDATE delivery_usage u SET attempts = LEAST(b.before + $3, greatest($4, b.before))
     FROM (SELECT attempts AS before FROM delivery_usage WHERE workspace_id = $1 AND month = $2::date FOR UPDATE) b
    WHERE u.workspace_id = $1 AND u.month = $2::date
    RETURNING greatest(LEAST(b.before + $3, $4) - b.before, 0)::integer AS granted`,
);

/**
 * On Citus, the month's reservation for one workspace on `plan`, in a transaction that holds its
 * claim lock (WORKSPACE_CLAIM_LOCK), as two single-shard statements: the month's row, made at
 * its first reservation; then read-and-add under its row lock, answering `granted`. `month` as
 * THIS_MONTH read it in the same transaction (Citus takes no stable function in RETURNING).
 * Nothing (null) when nothing is asked for or the plan has no quota.
 */
export function reserveMonthIn(tx: Tx, workspaceId: string, plan: string, count: number, month: string): Promise<{ granted: number }[]> | null {
  const quota = quotaOf(plan);
  if (count <= 0 || quota <= 0) return null;
  tx.send(OPEN_MONTH, [workspaceId, month]);
  return tx.rows<{ granted: number }>(ADD_ATTEMPTS, [workspaceId, month, count, quota]);
}

/**
 * Common table expressions, for a statement that holds CLAIM_LOCK, that reserve one attempt of
 * the month for each row of `rows` (a table expression with `workspace_id`, `plan` and
 * `counted`) that is `counted`, as far as each workspace's plan allows (`plans` and `attempts`:
 * the parameters that hold PLAN_QUOTAS); they end with `granted (workspace_id, granted, month)`,
 * one row per workspace with rows counted. The usage read is the latest (the lock orders
 * reservations; the row lock, refunds), and its row is created at the month's first reservation.
 */
export const monthlyReservation = (rows: string, plans: string, attempts: string) => `
  reserving AS (
    SELECT r.workspace_id, count(*)::integer AS n, min(q.attempts)::integer AS quota
      FROM ${rows} r LEFT JOIN unnest(${plans}::text[], ${attempts}::integer[]) AS q (plan, attempts) ON q.plan = r.plan
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

/**
 * delivery_usage (each workspace's attempts a month) and email_usage (its voter emails an hour).
 * Processors running side by side never grant the same unit twice: the month's attempts are
 * reserved under CLAIM_LOCK, the hour's emails in one read-and-add under a row lock.
 */
@Injectable()
export class QuotaStore {
  private static readonly RESERVE_MONTH = statement(
    'quota_reserve_month',
    `WITH wanted AS (SELECT $1::uuid AS workspace_id, $2::text AS plan, true AS counted FROM generate_series(1, $3::integer)),
     ${monthlyReservation('wanted', '$4', '$5')}
     SELECT granted, month FROM granted`,
  );
  private static readonly REFUND = statement(
    'quota_refund',
    `UPDATE delivery_usage SET attempts = greatest(attempts - $3, 0) WHERE workspace_id = $1 AND month = $2::date`,
  );
  // The row lock of `before` makes read-and-add one step against other processors.
  private static readonly ADD_EMAILS = statement(
    'quota_add_emails',
    `WITH before AS (SELECT sent AS used FROM email_usage WHERE workspace_id = $1 AND hour = ${HOUR} FOR UPDATE)
     UPDATE email_usage u SET sent = LEAST(before.used + $2, greatest($3, before.used))
       FROM before
      WHERE u.workspace_id = $1 AND u.hour = ${HOUR}
     RETURNING greatest(LEAST(before.used + $2, $3) - before.used, 0)::integer AS granted`,
  );
  private static readonly OPEN_HOUR = statement(
    'quota_open_hour',
    `INSERT INTO email_usage (workspace_id, hour, sent) VALUES ($1, ${HOUR}, 0) ON CONFLICT DO NOTHING`,
  );

  constructor(protected readonly db: Database) {}

  /**
   * Reserves up to `count` attempts of this month for a workspace on `plan`; answers how many were granted, and the month they were taken from (for a refund).
   */
  async reserveMonth(workspaceId: string, plan: string, count: number): Promise<{ granted: number; month: string | null }> {
    const row = await readAtCommit(this.db, async (tx) => {
      tx.send(CLAIM_LOCK);
      return { last: tx.rows<{ granted: number; month: string }>(QuotaStore.RESERVE_MONTH, [workspaceId, plan, count, PLAN_QUOTAS.plans, PLAN_QUOTAS.attempts]) };
    });
    return { granted: row?.[0]?.granted ?? 0, month: row?.[0]?.month ?? null };
  }

  /** Gives back attempts reserved in `month` and not made. */
  async refund(workspaceId: string, month: string, count: number): Promise<void> {
    await this.db.count(QuotaStore.REFUND, [workspaceId, month, count]);
  }

  /** Reserves up to `count` emails of this hour, of `limit`; answers how many were granted. */
  async reserveEmails(workspaceId: string, count: number, limit: number): Promise<number> {
    const add = () => this.db.rows<{ granted: number }>(QuotaStore.ADD_EMAILS, [workspaceId, count, limit]);
    let [row] = await add();
    if (!row) {
      // The hour's first email: its row, then the same step.
      await this.db.count(QuotaStore.OPEN_HOUR, [workspaceId]);
      [row] = await add();
    }
    return row?.granted ?? 0;
  }
}

/**
 * On Citus a reservation takes its workspace's lock and is two single-shard statements: Citus
 * plans a statement's CTEs apart and takes no stable function in RETURNING.
 */
@Injectable()
export class CitusQuotaStore extends QuotaStore {
  /**
   * Two round trips: the lock and the month (on the coordinator), then the reservation (on the
   * workspace's node) and the commit.
   */
  override async reserveMonth(workspaceId: string, plan: string, count: number): Promise<{ granted: number; month: string | null }> {
    let month: string | null = null;
    const rows = await readAtCommit(this.db, async (tx) => {
      tx.send(WORKSPACE_CLAIM_LOCK, [workspaceId]);
      [{ month }] = await tx.rows<{ month: string }>(THIS_MONTH);
      const last = reserveMonthIn(tx, workspaceId, plan, count, month!);
      return last ? { last } : null;
    });
    if (rows === null) return { granted: 0, month: null };
    return { granted: rows[0]?.granted ?? 0, month };
  }
}
