import { MigrationInterface, QueryRunner } from 'typeorm';

const INDEX = 'posts_similar_title_idx';

/**
 * Similar posts (GET /api/v1/posts/similar, the public site's "Similar posts" step, the
 * dashboard's merge suggestions): a trigram index on titles whose keys begin with the board, so
 * that `workspace_id = $1 AND board_id = $2 AND title % $3` reads one board's entries.
 * btree_gin puts workspace_id and board_id in the GIN index beside the title's trigrams.
 *
 * pg_trgm and btree_gin were created by Initial and WorkspaceSearch; created here again (IF NOT
 * EXISTS) so that this migration says what it needs. On Citus, CREATE EXTENSION on the
 * coordinator is propagated to every worker, and CREATE INDEX on a distributed table builds it
 * on every shard. On the embedded database (PGlite), both are contrib extensions loaded at start
 * (src/database/embedded-postgres.ts).
 *
 * Built CONCURRENTLY, outside a transaction, so that posts keep being written meanwhile; an
 * interrupted build leaves an invalid index, dropped and built again.
 */
export class SimilarPosts1763892000000 implements MigrationInterface {
  name = 'SimilarPosts1763892000000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`CREATE EXTENSION IF NOT EXISTS btree_gin`);
    const [invalid] = await q.query(`SELECT 1 FROM pg_index WHERE indexrelid = to_regclass($1) AND NOT indisvalid`, [INDEX]);
    if (invalid) await q.query(`DROP INDEX CONCURRENTLY ${INDEX}`);
    await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${INDEX} ON posts USING gin (workspace_id, board_id, title gin_trgm_ops)`);
  }

  /** A plain statement: TypeORM reverts a migration inside a transaction, where CONCURRENTLY cannot run. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS ${INDEX}`);
  }
}
