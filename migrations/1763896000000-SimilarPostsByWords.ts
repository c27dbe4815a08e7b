import { MigrationInterface, QueryRunner } from 'typeorm';
import { createIndexConcurrently } from './concurrent-index';

const INDEX = 'posts_similar_words_idx';
const TRIGRAMS = 'posts_similar_title_idx';

/**
 * Similar posts by their titles' words (issue 32's target: p95 <= 20 ms on a board of a million
 * posts). The trigram index of SimilarPosts answered `title % $3` by reading every title that
 * shares enough trigrams, and common words share their trigrams with a large part of a board: at
 * a million posts that took 1 to 8 s (docs/performance.md). The posts store now reads a narrow
 * set of candidates, posts sharing the title's rarer words, and ranks only those by trigram
 * similarity (PostsStore.similar).
 *
 * - `chorus_title_words(t)`: the distinct words of a title, lower-cased, split at every run of
 *   characters that are not letters or digits, of 3 characters or more.
 * - `chorus_title_word_keys(ws, board, t)`: those words (split as above, written out again: an
 *   index's expression may call only what is in pg_catalog, since PostgreSQL 17 builds indexes
 *   with `search_path` set to it; PGlite is PostgreSQL 18) hashed with their workspace and board,
 *   so that an entry of the index lists one board's posts only (as WorkspaceSearchKeys does for
 *   a workspace), and a word frequent in another board or workspace costs nothing here.
 * - `posts_similar_words_idx`: a GIN index of those keys. `keys @> chorus_title_word_keys(ws,
 *   board, 'word')` reads one word's entry, `@> (..., 'word other')` the posts having both.
 *
 * The trigram index is dropped: nothing reads it now (similarity() is computed on the few
 * candidates only). pg_trgm stays, for similarity().
 *
 * COST 1000: evaluated row by row the function costs far more than an operator, so that the
 * planner reads the index rather than testing posts in order against it. On Citus, CREATE
 * FUNCTION is propagated to the workers and CREATE INDEX builds the index on every shard; on
 * the embedded database (PGlite) the functions are plain SQL and GIN is there.
 *
 * Built CONCURRENTLY, outside a transaction, so that posts keep being written meanwhile; an
 * interrupted build leaves an invalid index, dropped and built again.
 */
export class SimilarPostsByWords1763896000000 implements MigrationInterface {
  name = 'SimilarPostsByWords1763896000000';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`
      CREATE OR REPLACE FUNCTION chorus_title_words(t text) RETURNS text[]
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
        SELECT coalesce(array_agg(DISTINCT w), '{}') FROM regexp_split_to_table(lower(t), '[^[:alnum:]]+') w WHERE length(w) >= 3
      $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION chorus_title_word_keys(ws uuid, board uuid, t text) RETURNS int8[]
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 1000 AS $$
        SELECT coalesce(array_agg(hashtextextended(w, hashtextextended(ws::text || board::text, 0))), '{}')
          FROM (SELECT DISTINCT w FROM regexp_split_to_table(lower(t), '[^[:alnum:]]+') w WHERE length(w) >= 3) words(w)
      $$`);
    await createIndexConcurrently(q, INDEX, `ON posts USING gin (chorus_title_word_keys(workspace_id, board_id, title))`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${TRIGRAMS}`);
  }

  /** Plain statements: TypeORM reverts a migration inside a transaction, where CONCURRENTLY cannot run. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS ${TRIGRAMS} ON posts USING gin (workspace_id, board_id, title gin_trgm_ops)`);
    await q.query(`DROP INDEX IF EXISTS ${INDEX}`);
    await q.query(`DROP FUNCTION IF EXISTS chorus_title_word_keys(uuid, uuid, text)`);
    await q.query(`DROP FUNCTION IF EXISTS chorus_title_words(text)`);
  }
}
