import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Changelog entries brought in by an import: imported_records remembers them (kind
 * `changelog_entry`), and an imported entry has no creator here (`created_by` null: an export
 * does not say who wrote an entry, and an import runs as no one).
 */
export class ImportedChangelog1763860000000 implements MigrationInterface {
  name = 'ImportedChangelog1763860000000';

  async up(q: QueryRunner): Promise<void> {
    const [citus]: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    // The tables have foreign keys to a reference table (workspaces): DDL on them in this
    // transaction runs shard after shard.
    if (citus) await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
    // One constraint a statement: Citus takes no ADD CONSTRAINT beside another subcommand.
    await q.query(`ALTER TABLE imported_records DROP CONSTRAINT imported_records_kind_check`);
    await q.query(
      `ALTER TABLE imported_records ADD CONSTRAINT imported_records_kind_check CHECK (kind IN ('board', 'person', 'post', 'comment', 'changelog_entry'))`,
    );
    await q.query(`ALTER TABLE changelog_entries ALTER COLUMN created_by DROP NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    const [citus]: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (citus) await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
    await q.query(`DELETE FROM imported_records WHERE kind = 'changelog_entry'`);
    await q.query(`ALTER TABLE imported_records DROP CONSTRAINT imported_records_kind_check`);
    await q.query(`ALTER TABLE imported_records ADD CONSTRAINT imported_records_kind_check CHECK (kind IN ('board', 'person', 'post', 'comment'))`);
  }
}
