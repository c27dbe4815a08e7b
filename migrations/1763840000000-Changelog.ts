import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The changelog: entries (their ids from a sequence of their own, `bigserial`: on Citus a
 * sequence made apart cannot be given an owner afterwards), the posts each entry links,
 * and the people subscribed to a workspace's changelog.
 *
 * An entry's state is read from two columns: `published_at` (published), else `publish_at`
 * (scheduled), else a draft. `publisher_id` is who published it or set its `publish_at` (left
 * out of its emails). `mail_after` is where its emails' batches stand once it is published: the
 * last address queued (keyset), `''` before the first batch, null when every batch is done.
 *
 * On Citus the three tables are distributed by workspace_id with the other tenant tables.
 */
export class Changelog1763840000000 implements MigrationInterface {
  name = 'Changelog1763840000000';

  async up(q: QueryRunner): Promise<void> {
    const [citus]: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    // Foreign keys to a reference table (workspaces) may be made in this transaction only if
    // nothing in it ran on several shards in parallel.
    if (citus) await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
    await q.query(`
      CREATE TABLE changelog_entries (
        workspace_id uuid NOT NULL,
        id bigserial NOT NULL,
        title text NOT NULL,
        body text NOT NULL DEFAULT '',
        type text NOT NULL CHECK (type IN ('new', 'improved', 'fixed')),
        publish_at timestamptz(3),
        published_at timestamptz(3),
        publisher_id uuid,
        mail_after text,
        mail_event_id uuid,
        created_by uuid NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, id)
      )`);
    await q.query(`CREATE INDEX changelog_entries_order_idx ON changelog_entries (workspace_id, published_at DESC, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX changelog_entries_due_idx ON changelog_entries (publish_at) WHERE published_at IS NULL AND publish_at IS NOT NULL`);
    await q.query(`CREATE INDEX changelog_entries_mail_idx ON changelog_entries (workspace_id) WHERE mail_after IS NOT NULL`);
    await q.query(`
      CREATE TABLE changelog_entry_posts (
        workspace_id uuid NOT NULL,
        entry_id bigint NOT NULL,
        post_id bigint NOT NULL,
        PRIMARY KEY (workspace_id, entry_id, post_id)
      )`);
    await q.query(`CREATE INDEX changelog_entry_posts_post_idx ON changelog_entry_posts (workspace_id, post_id)`);
    await q.query(`
      CREATE TABLE changelog_subscribers (
        workspace_id uuid NOT NULL,
        person_id uuid NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, person_id)
      )`);
    // Citus takes no foreign key from a table not yet distributed to a distributed one: the
    // tables are distributed first, with people's colocation group, and their keys made after.
    if (citus) {
      for (const table of ['changelog_entries', 'changelog_entry_posts', 'changelog_subscribers']) {
        await q.query(`SELECT create_distributed_table($1, 'workspace_id', colocate_with => 'people')`, [table]);
      }
    }
    await q.query(`ALTER TABLE changelog_entries ADD FOREIGN KEY (workspace_id) REFERENCES workspaces (id) ON DELETE CASCADE`);
    // One constraint a statement: Citus takes no ADD CONSTRAINT beside another subcommand.
    await q.query(
      `ALTER TABLE changelog_entry_posts ADD FOREIGN KEY (workspace_id, entry_id) REFERENCES changelog_entries (workspace_id, id) ON DELETE CASCADE`,
    );
    await q.query(`ALTER TABLE changelog_entry_posts ADD FOREIGN KEY (workspace_id, post_id) REFERENCES posts (workspace_id, id) ON DELETE CASCADE`);
    await q.query(
      `ALTER TABLE changelog_subscribers ADD FOREIGN KEY (workspace_id, person_id) REFERENCES people (workspace_id, id) ON DELETE CASCADE`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS changelog_subscribers`);
    await q.query(`DROP TABLE IF EXISTS changelog_entry_posts`);
    await q.query(`DROP TABLE IF EXISTS changelog_entries`);
  }
}
