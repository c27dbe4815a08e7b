import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Blocking, for moderation: a person a workspace has blocked (`people.blocked_at`, null when not
 * blocked), and who may sign in to the public site by an emailed code (`workspaces`: the blocked
 * email domains, one ASCII domain each, and whether addresses at disposable-mail domains are
 * refused, on by default). Columns of existing tables: on Citus `people` is distributed and
 * `workspaces` a reference table, and this DDL reaches every node. The partial index lists a
 * workspace's blocked people without reading the others.
 */
export class Blocking1763891000000 implements MigrationInterface {
  name = 'Blocking1763891000000';

  async up(q: QueryRunner): Promise<void> {
    // Citus runs DDL of a distributed table's shards in parallel, after which the transaction may
    // not change a reference table: one connection at a time instead.
    const [citus]: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (citus) await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
    await q.query(`ALTER TABLE people ADD COLUMN blocked_at timestamptz(3)`);
    await q.query(`CREATE INDEX people_blocked ON people (workspace_id, blocked_at) WHERE blocked_at IS NOT NULL`);
    await q.query(`ALTER TABLE workspaces ADD COLUMN blocked_email_domains text[] NOT NULL DEFAULT '{}'`);
    await q.query(`ALTER TABLE workspaces ADD COLUMN refuse_disposable_emails boolean NOT NULL DEFAULT true`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workspaces DROP COLUMN refuse_disposable_emails`);
    await q.query(`ALTER TABLE workspaces DROP COLUMN blocked_email_domains`);
    await q.query(`DROP INDEX IF EXISTS people_blocked`);
    await q.query(`ALTER TABLE people DROP COLUMN blocked_at`);
  }
}
