import { Client } from 'pg';
import { onEmbeddedDatabase, testDatabaseUrl } from './test-app';

/**
 * Test files that run outbox processors (startTestApp({ RUN_WORKER: 'true' })) hold this lock
 * while they do, so that two such files never run processors at the same time: any processor
 * may claim any workspace's deliveries and handles them with its own configuration (retry
 * schedule, timeout, private targets switch). A PostgreSQL session advisory lock on a connection
 * of its own; on the embedded database test files run one at a time, so there is nothing to do.
 *
 *   let release: () => Promise<void>;
 *   beforeAll(async () => { release = await holdProcessorLock(); }, 180_000);
 *   afterAll(() => release());
 */
export async function holdProcessorLock(): Promise<() => Promise<void>> {
  if (onEmbeddedDatabase()) return async () => {};
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  // Polled, not waited for: a session blocked in pg_advisory_lock counts as a transaction in
  // progress, which CREATE INDEX CONCURRENTLY waits for. Were the holder's app migrating a fresh
  // database (WorkspaceSearchKeys, DeliveryQueueOrder), the two would wait for each other for good.
  while (!(await client.query(`SELECT pg_try_advisory_lock(hashtext('chorus-test-outbox-processors')) AS locked`)).rows[0].locked) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return async () => {
    await client.query(`SELECT pg_advisory_unlock_all()`).catch(() => {});
    await client.end().catch(() => {});
  };
}

/**
 * Cancels what the given workspaces still have pending, so that a later test file's processor
 * (with other settings) never picks it up.
 */
export async function cancelPending(db: { query(sql: string, params: unknown[]): Promise<unknown> }, workspaceIds: string[]) {
  await db.query(
    `UPDATE webhook_deliveries SET status = 'cancelled', reason = 'endpoint_disabled', next_attempt_at = NULL
      WHERE workspace_id = ANY($1::uuid[]) AND status = 'pending'`,
    [workspaceIds],
  );
}
