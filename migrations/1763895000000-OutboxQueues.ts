import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `outbox_queues`, the outbox's ready-queue (issue 35): a row for every queue (an endpoint, or a
 * workspace's mail: `queue` is the endpoint's id, or the zero uuid) with pending deliveries not
 * under lease, and `due_at`, a time no later than the first at which one of them may be claimed.
 * A claim reads each workspace's queues in `due_at` order, and only as many as it can use,
 * instead of visiting every queue with pending work; then it sets the `due_at` of the queues at
 * the front to what their deliveries say, or drops those with nothing left to claim
 * (src/outbox/claims.store.ts). Whatever makes a delivery pending or due sooner brings its queue
 * forward (src/outbox/deliveries.store.ts), and a claim first brings back the queues of leases
 * that ended.
 *
 * A workspace's rows go with the workspace; a deleted endpoint's row is dropped by the next claim
 * that reads it (no foreign key: a write that brings a queue forward must not wait on, or
 * deadlock with, the endpoint's deletion). Filled here from the pending deliveries, each queue
 * at its earliest. On Citus the table is distributed by workspace_id with the other tenant
 * tables.
 */
export class OutboxQueues1763895000000 implements MigrationInterface {
  name = 'OutboxQueues1763895000000';

  async up(q: QueryRunner): Promise<void> {
    const [citus]: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (citus) await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
    await q.query(`
      CREATE TABLE outbox_queues (
        workspace_id uuid NOT NULL,
        queue uuid NOT NULL,
        endpoint_id uuid,
        due_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, queue),
        CHECK (queue = coalesce(endpoint_id, '00000000-0000-0000-0000-000000000000'::uuid))
      )`);
    await q.query(`CREATE INDEX outbox_queues_due_idx ON outbox_queues (workspace_id, due_at)`);
    if (citus) await q.query(`SELECT create_distributed_table('outbox_queues', 'workspace_id', colocate_with => 'webhook_deliveries')`);
    await q.query(`ALTER TABLE outbox_queues ADD FOREIGN KEY (workspace_id) REFERENCES workspaces (id) ON DELETE CASCADE`);
    await q.query(`
      INSERT INTO outbox_queues (workspace_id, queue, endpoint_id, due_at)
      SELECT workspace_id, coalesce(endpoint_id, '00000000-0000-0000-0000-000000000000'::uuid), endpoint_id, min(next_attempt_at)
        FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at IS NOT NULL
       GROUP BY 1, 2, 3`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS outbox_queues`);
  }
}
