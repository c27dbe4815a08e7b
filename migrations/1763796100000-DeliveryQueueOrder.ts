import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A queue's index in the scheduler's own order (due time, then creation): a claim reads a
 * queue's first due deliveries and stops, instead of reading every due one to sort them, which
 * grew with the backlog (deliveries fanned out together share their due time).
 */
export class DeliveryQueueOrder1763796100000 implements MigrationInterface {
  name = 'DeliveryQueueOrder1763796100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_queue_idx`);
    await q.query(
      `CREATE INDEX webhook_deliveries_queue_idx ON webhook_deliveries
         (workspace_id, (coalesce(endpoint_id, '00000000-0000-0000-0000-000000000000'::uuid)), next_attempt_at, created_at)
       WHERE status = 'pending'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_queue_idx`);
    await q.query(
      `CREATE INDEX webhook_deliveries_queue_idx ON webhook_deliveries
         (workspace_id, (coalesce(endpoint_id, '00000000-0000-0000-0000-000000000000'::uuid)), next_attempt_at)
       WHERE status = 'pending'`,
    );
  }
}
