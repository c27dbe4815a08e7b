import type { DataSource, EntityManager } from 'typeorm';

const known = new WeakMap<object, Promise<boolean>>();

/**
 * Whether the database is a Citus coordinator (the `citus` extension is installed), where the
 * tenant tables are distributed by workspace_id (migrations/…-DistributeByWorkspace.ts). Asked
 * once per DataSource. Statements that differ there:
 * - a NOTIFY cannot ride on a statement that writes a tenant table: Citus runs such a statement
 *   on the worker that holds the workspace's shard, where nobody LISTENs; it runs apart, on
 *   the coordinator, in the same transaction (`notifyAfter`);
 * - the outbox claims, fans out and records one workspace at a time (each a single-shard
 *   statement), where on one server one statement serves every workspace.
 */
export function isDistributed(db: DataSource, via: Pick<EntityManager, 'query'> = db): Promise<boolean> {
  let answer = known.get(db);
  if (!answer) {
    answer = via
      .query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`)
      .then((rows: unknown[]) => rows.length > 0);
    answer.catch(() => known.delete(db)); // asked again next time (the database was down, say)
    known.set(db, answer);
  }
  return answer;
}

/**
 * `isDistributed` for a transaction's manager (its DataSource's answer), asked on the
 * transaction's own connection: callers that each hold one of the pool's connections must not
 * wait for another to learn it.
 */
export const managerIsDistributed = (manager: Pick<EntityManager, 'dataSource' | 'query'>): Promise<boolean> =>
  isDistributed(manager.dataSource, manager);
