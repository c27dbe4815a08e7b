import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What an import brought in, one row per record of a source: the source (a Chorus export by its
 * workspace, a CSV file, a Canny site), the kind of record, its identity there and the row it
 * became here. Importing the same source again finds each record here and adds nothing. Votes
 * are not listed: a vote is its post and person, which the votes table already keeps once.
 * On Citus the table is distributed by workspace, with the other tenant tables.
 */
export class ImportedRecords1763850000000 implements MigrationInterface {
  name = 'ImportedRecords1763850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE imported_records (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        source text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('board', 'person', 'post', 'comment')),
        source_key text NOT NULL,
        target_id text NOT NULL,
        imported_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, source, kind, source_key)
      )`);
    const [citus]: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (citus) {
      await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
      await q.query(`SELECT create_distributed_table('imported_records', 'workspace_id', colocate_with => 'people')`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS imported_records`);
  }
}
