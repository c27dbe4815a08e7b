import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Moderation (docs/moderation in decisions.md, "Moderation and similar posts"):
 * - `workspaces.moderation`: `off`, `first` or `all` (a reference table on Citus: the DDL reaches
 *   every node).
 * - `posts.moderation` and `comments.moderation`: `approved`, `pending` or `rejected`. A constant
 *   default, so adding the column rewrites nothing. The lists keep their indexes: they walk them
 *   in order and read each row anyway (merged_into_id is not in them either), so `moderation =
 *   'approved'` is one more test on a row already read, and held rows are few. Only the queue
 *   has an index of its own: the pending items by creation, partial, so it stays tiny.
 * - `people.has_approved`: the person has an approved post or comment (mode `first`). A flag
 *   and not a query, since no index finds a person's posts or comments (one would cost every
 *   post's insert an index entry for a question asked only in mode `first`); set when an item of
 *   theirs is approved, kept from what is there now (everything is approved so far).
 */
export class Moderation1763890000000 implements MigrationInterface {
  name = 'Moderation1763890000000';

  async up(q: QueryRunner): Promise<void> {
    const [citus]: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (citus) await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
    await q.query(
      `ALTER TABLE workspaces ADD COLUMN moderation text NOT NULL DEFAULT 'off' CONSTRAINT workspaces_moderation_check CHECK (moderation IN ('off', 'first', 'all'))`,
    );
    for (const table of ['posts', 'comments']) {
      await q.query(
        `ALTER TABLE ${table} ADD COLUMN moderation text NOT NULL DEFAULT 'approved' CONSTRAINT ${table}_moderation_check CHECK (moderation IN ('approved', 'pending', 'rejected'))`,
      );
      await q.query(`CREATE INDEX ${table}_pending_idx ON ${table} (workspace_id, created_at, id) WHERE moderation = 'pending'`);
    }
    await q.query(`ALTER TABLE people ADD COLUMN has_approved boolean NOT NULL DEFAULT false`);
    await q.query(
      `UPDATE people SET has_approved = true
        WHERE EXISTS (SELECT 1 FROM posts p WHERE p.workspace_id = people.workspace_id AND p.author_id = people.id)
           OR EXISTS (SELECT 1 FROM comments c WHERE c.workspace_id = people.workspace_id AND c.author_id = people.id)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE people DROP COLUMN has_approved`);
    for (const table of ['posts', 'comments']) {
      await q.query(`DROP INDEX IF EXISTS ${table}_pending_idx`);
      await q.query(`ALTER TABLE ${table} DROP COLUMN moderation`);
    }
    await q.query(`ALTER TABLE workspaces DROP COLUMN moderation`);
  }
}
