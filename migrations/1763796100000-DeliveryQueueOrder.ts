import { MigrationInterface, QueryRunner } from 'typeorm';

const COLUMNS = `(workspace_id, (coalesce(endpoint_id, '00000000-0000-0000-0000-000000000000'::uuid)), next_attempt_at`;

/**
 * A queue's index in the scheduler's own order (due time, then creation): a claim reads a
 * queue's first due deliveries and stops, instead of reading every due one to sort them, which
 * grew with the backlog (deliveries fanned out together share their due time).
 *
 * Outside a transaction, built CONCURRENTLY under a new name and renamed, so that deliveries
 * keep being written while a large table is indexed. Each step can run again after an
 * interruption (an invalid leftover of the new index is dropped and rebuilt).
 */
export class DeliveryQueueOrder1763796100000 implements MigrationInterface {
  name = 'DeliveryQueueOrder1763796100000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    const [invalid] = await q.query(
      `SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('webhook_deliveries_queue_order_idx') AND NOT indisvalid`,
    );
    if (invalid) await q.query(`DROP INDEX CONCURRENTLY webhook_deliveries_queue_order_idx`);
    await q.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_queue_order_idx ON webhook_deliveries
         ${COLUMNS}, created_at) WHERE status = 'pending'`,
    );
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS webhook_deliveries_queue_idx`);
    await q.query(`ALTER INDEX webhook_deliveries_queue_order_idx RENAME TO webhook_deliveries_queue_idx`);
  }

  /** Plain statements: TypeORM reverts a migration inside a transaction, where CONCURRENTLY cannot run. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_queue_idx`);
    await q.query(`CREATE INDEX webhook_deliveries_queue_idx ON webhook_deliveries ${COLUMNS}) WHERE status = 'pending'`);
  }
}
