import type { EntityManager } from 'typeorm';
import { updateReturning } from '../database/queries';
import { PLANS, isPlan } from '../workspaces/plans';

const MONTH = `date_trunc('month', now() AT TIME ZONE 'UTC')::date`;

/**
 * Counts up to `count` delivery attempts against the workspace's calendar month (UTC), as far
 * as its plan's quota reaches, and answers how many may be made now. The row lock of `before`
 * makes read-and-add one step against every other processor and API instance.
 */
export async function reserveDeliveryAttempts(
  db: Pick<EntityManager, 'query'>,
  workspaceId: string,
  plan: string,
  count: number,
): Promise<number> {
  const quota = isPlan(plan) ? PLANS[plan].deliveriesPerMonth : 0;
  if (quota <= 0 || count <= 0) return 0;
  await db.query(`INSERT INTO delivery_usage (workspace_id, month, attempts) VALUES ($1, ${MONTH}, 0) ON CONFLICT DO NOTHING`, [
    workspaceId,
  ]);
  const [row] = await updateReturning<{ granted: number }>(
    db,
    `WITH before AS (SELECT attempts FROM delivery_usage WHERE workspace_id = $1 AND month = ${MONTH} FOR UPDATE)
     UPDATE delivery_usage u SET attempts = LEAST(before.attempts + $2, $3)
       FROM before
      WHERE u.workspace_id = $1 AND u.month = ${MONTH}
     RETURNING (LEAST(before.attempts + $2, $3) - before.attempts)::integer AS granted`,
    [workspaceId, count, quota],
  );
  return Math.max(0, row?.granted ?? 0);
}
