import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `voter_mailings`: a status change whose voter emails are being made in batches. Fan-out makes
 * the row when it dispatches the event; each batch queues the emails of the next voters by
 * address after `mail_after` (keyset; `''` before the first) and moves it on, in one
 * transaction; the last batch deletes the row. `data` is the event's data, for the bodies.
 *
 * On Citus the table is distributed by workspace_id with the other tenant tables.
 */
export class VoterMailings1763880000000 implements MigrationInterface {
  name = 'VoterMailings1763880000000';

  async up(q: QueryRunner): Promise<void> {
    const [citus]: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (citus) await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
    await q.query(`
      CREATE TABLE voter_mailings (
        workspace_id uuid NOT NULL,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        event_created_at timestamptz(3) NOT NULL,
        post_id bigint NOT NULL,
        board_id uuid NOT NULL,
        actor_id uuid,
        data text NOT NULL,
        mail_after text NOT NULL DEFAULT '',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, event_id)
      )`);
    if (citus) await q.query(`SELECT create_distributed_table('voter_mailings', 'workspace_id', colocate_with => 'people')`);
    await q.query(`ALTER TABLE voter_mailings ADD FOREIGN KEY (workspace_id) REFERENCES workspaces (id) ON DELETE CASCADE`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS voter_mailings`);
  }
}
