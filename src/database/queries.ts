import type { EntityManager } from 'typeorm';

/**
 * Runs an UPDATE … RETURNING and gives its rows. (TypeORM's `query` answers an UPDATE with
 * `[rows, rowCount]` on PostgreSQL, unlike SELECT and INSERT.)
 */
export async function updateReturning<T>(manager: Pick<EntityManager, 'query'>, sql: string, params: unknown[]): Promise<T[]> {
  const [rows] = (await manager.query(sql, params)) as [T[], number];
  return rows;
}
