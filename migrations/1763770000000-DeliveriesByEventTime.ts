import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An endpoint's deliveries are listed newest first by the event's time, then by event id: every
 * delivery of one fan-out shares its `created_at`, so that order was left to the random id.
 */
export class DeliveriesByEventTime1763770000000 implements MigrationInterface {
  name = 'DeliveriesByEventTime1763770000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS webhook_deliveries_endpoint_idx`);
    await q.query(
      `CREATE INDEX webhook_deliveries_endpoint_idx
          ON webhook_deliveries (workspace_id, endpoint_id, event_created_at DESC, event_id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS webhook_deliveries_endpoint_idx`);
    await q.query(
      `CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (workspace_id, endpoint_id, created_at DESC, id DESC)`,
    );
  }
}
