import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexConcurrently } from './concurrent-index';

/**
 * Fewer indexes for each write of a voter email's row (issue 35): the row is written three times
 * (made, leased, delivered), and none of those updates can be HOT, so each write adds an entry
 * to every index whose predicate it meets. Three of them served nothing for an email:
 * - `webhook_deliveries_id_key` (id alone): every statement names the workspace, and the primary
 *   key (workspace_id, id) finds the row (Citus never had it: DistributeByWorkspace);
 * - `webhook_deliveries_endpoint_idx` and the uniqueness of (workspace_id, endpoint_id,
 *   event_id) hold only deliveries to endpoints (an email's endpoint_id is null: never looked up
 *   by endpoint, never a conflict there), so they become partial, `WHERE endpoint_id IS NOT NULL`.
 * Index entries an email's row adds: 14 instead of 23 (made 8 → 5, leased 9 → 6, delivered
 * 6 → 3).
 *
 * Outside a transaction, each index built CONCURRENTLY under a new name, then the old one
 * dropped and the new one renamed, so that deliveries keep being written while a large table is
 * indexed; each step can run again after an interruption.
 */
export class EmailsInFewerIndexes1763899000000 implements MigrationInterface {
  name = 'EmailsInFewerIndexes1763899000000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    await createIndexConcurrently(
      q,
      'webhook_deliveries_endpoint_only_idx',
      `ON webhook_deliveries (workspace_id, endpoint_id, event_created_at DESC, event_id DESC) WHERE endpoint_id IS NOT NULL`,
    );
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS webhook_deliveries_endpoint_idx`);
    await q.query(`ALTER INDEX webhook_deliveries_endpoint_only_idx RENAME TO webhook_deliveries_endpoint_idx`);
    await createIndexConcurrently(
      q,
      'webhook_deliveries_endpoint_event_key',
      `ON webhook_deliveries (workspace_id, endpoint_id, event_id) WHERE endpoint_id IS NOT NULL`,
      true,
    );
    await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_workspace_id_endpoint_id_event_id_key`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS webhook_deliveries_id_key`);
  }

  /** Plain statements: TypeORM reverts a migration inside a transaction, where CONCURRENTLY cannot run. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_endpoint_event_key`);
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_workspace_id_endpoint_id_event_id_key UNIQUE (workspace_id, endpoint_id, event_id)`,
    );
    await q.query(`DROP INDEX webhook_deliveries_endpoint_idx`);
    await q.query(`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (workspace_id, endpoint_id, event_created_at DESC, event_id DESC)`);
    const [citus]: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (!citus) await q.query(`CREATE UNIQUE INDEX webhook_deliveries_id_key ON webhook_deliveries (id)`);
  }
}
