import { MigrationInterface, QueryRunner } from 'typeorm';

const INDEX = `outbox_events_post_idx`;

/**
 * The events of one post (the dashboard's post page lists each with its deliveries): an index
 * on the post id inside the event's data. Built CONCURRENTLY, outside a transaction, so that
 * events keep being written meanwhile; an interrupted build is dropped and built again.
 */
export class EventsByPost1763800002000 implements MigrationInterface {
  name = 'EventsByPost1763800002000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    const [invalid] = await q.query(`SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('${INDEX}') AND NOT indisvalid`);
    if (invalid) await q.query(`DROP INDEX CONCURRENTLY ${INDEX}`);
    await q.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${INDEX} ON outbox_events (workspace_id, ((data -> 'post' ->> 'id')::bigint), created_at)`,
    );
  }

  /** A plain statement: TypeORM reverts a migration inside a transaction, where CONCURRENTLY cannot run. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ${INDEX}`);
  }
}
