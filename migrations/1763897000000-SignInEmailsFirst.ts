import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexConcurrently } from './concurrent-index';

/**
 * The pending sign-in emails of each workspace, in due order: a claim takes them before the
 * workspace's other email (src/outbox/claims.store.ts), so a code someone waits for is not queued
 * behind a mailing to 100,000 voters (it would expire first, after 15 minutes). Small: only
 * pending sign-in emails are in it.
 *
 * Outside a transaction, built CONCURRENTLY, so that deliveries keep being written while a large
 * table is read; an invalid leftover of an interrupted build is dropped and built again.
 */
export class SignInEmailsFirst1763897000000 implements MigrationInterface {
  name = 'SignInEmailsFirst1763897000000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    await createIndexConcurrently(
      q,
      'webhook_deliveries_sign_in_idx',
      `ON webhook_deliveries (workspace_id, next_attempt_at) WHERE status = 'pending' AND endpoint_id IS NULL AND event_type = 'sign_in'`,
    );
  }

  /** A plain statement: TypeORM reverts a migration inside a transaction, where CONCURRENTLY cannot run. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS webhook_deliveries_sign_in_idx`);
  }
}
