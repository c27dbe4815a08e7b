import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One search index whose keys belong to a workspace, replacing the btree_gin pair of
 * WorkspaceSearch. With btree_gin, `workspace_id` is a key of its own beside the trigrams, and
 * a trigram's entry still lists every workspace's posts: a word frequent in other workspaces
 * made a search read their entries (at a million posts, the index scan took 20 ms for
 * "kubernetes", frequent elsewhere, and 3 ms for "zeppelin", rare everywhere). Here every key
 * is a hash of (workspace, piece of text), so a search reads only its own workspace's entries
 * for its pieces.
 *
 * The pieces of `title || ' ' || body`, lower-cased, are every run of 1, 2 and 3 characters
 * that holds no space. A search term holds no white space, and is found in the text only if
 * each of its pieces is (its 3-character runs; a term of 1 or 2 characters is one piece), so
 * `chorus_search_keys(text) @> chorus_search_term_keys(terms)` never misses a match; the
 * query then checks every candidate with ILIKE, which also drops a candidate that only a hash
 * collision brought. Lower-casing the whole text and the term is what ILIKE does.
 *
 * Outside a transaction, so that the index is built CONCURRENTLY: at a million posts that takes
 * minutes, during which a plain CREATE INDEX would hold back every write to posts. Each step
 * can run again after an interruption (an index left invalid by one is dropped and rebuilt).
 */
export class WorkspaceSearchKeys1763790000002 implements MigrationInterface {
  name = 'WorkspaceSearchKeys1763790000002';
  transaction = false as const;

  async up(q: QueryRunner): Promise<void> {
    // The seed of a workspace's keys: hashtextextended(piece, seed) mixes both into 64 bits.
    // plpgsql: its arrays are expanded in place, so the loop is linear in the text's length
    // (about 0.1 ms for a post of 220 characters).
    // COST 1000: evaluated row by row, it costs far more than an operator, so the planner
    // never prefers reading posts in sequence to the index. PARALLEL RESTRICTED, although it is
    // safe: with that cost, a search of a few hundred rows looks worth parallel workers, and
    // starting them takes longer (80-140 ms measured at a million posts) than the search.
    await q.query(`
      CREATE OR REPLACE FUNCTION chorus_search_keys(ws uuid, t text) RETURNS int8[]
      LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL RESTRICTED COST 1000 AS $$
      DECLARE
        c text[] := string_to_array(lower(t), NULL);
        n int := coalesce(array_length(c, 1), 0);
        seed int8 := hashtextextended(ws::text, 0);
        keys int8[] := '{}';
      BEGIN
        FOR i IN 1..n LOOP
          CONTINUE WHEN c[i] = ' ';
          keys := keys || hashtextextended(c[i], seed);
          IF i < n AND c[i + 1] <> ' ' THEN
            keys := keys || hashtextextended(c[i] || c[i + 1], seed);
            IF i + 1 < n AND c[i + 2] <> ' ' THEN
              keys := keys || hashtextextended(c[i] || c[i + 1] || c[i + 2], seed);
            END IF;
          END IF;
        END LOOP;
        RETURN keys;
      END $$`);
    // Keys that every post matching all the terms has: the term itself when shorter than 3
    // characters, else 3-character runs that cover it without overlapping (and the last run):
    // "reconciliation" needs rec, onc, ili, ati and ion. Every run that a term holds is
    // necessary, but the overlapping ones add little: they made GIN read 611 pages instead of
    // 293 for "quarterly spreadsheet reconciliation" at a million posts, for the same 290 rows.
    await q.query(`
      CREATE OR REPLACE FUNCTION chorus_search_term_keys(ws uuid, terms text[]) RETURNS int8[]
      LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
      DECLARE
        seed int8 := hashtextextended(ws::text, 0);
        keys int8[] := '{}';
        term text;
        c text[];
        n int;
      BEGIN
        FOREACH term IN ARRAY terms LOOP
          c := string_to_array(lower(term), NULL);
          n := coalesce(array_length(c, 1), 0);
          IF n < 3 THEN
            keys := keys || hashtextextended(lower(term), seed);
            CONTINUE;
          END IF;
          FOR i IN 1..n - 2 BY 3 LOOP
            keys := keys || hashtextextended(c[i] || c[i + 1] || c[i + 2], seed);
          END LOOP;
          IF n % 3 <> 0 THEN
            keys := keys || hashtextextended(c[n - 2] || c[n - 1] || c[n], seed);
          END IF;
        END LOOP;
        RETURN keys;
      END $$`);
    await dropIfInvalid(q, 'posts_search_idx');
    await q.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS posts_search_idx ON posts
         USING gin (chorus_search_keys(workspace_id, title || ' ' || body))`,
    );
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS posts_search_trgm_idx`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS posts_search_short_idx`);
    await q.query(`DROP FUNCTION IF EXISTS chorus_short_grams(text)`);
  }

  /**
   * Plain statements: TypeORM reverts a migration inside a transaction whatever `transaction`
   * says, and CONCURRENTLY cannot run in one. Writes to posts wait while the indexes build.
   */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION chorus_short_grams(t text) RETURNS text[]
      LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
      DECLARE
        c text[] := string_to_array(lower(t), NULL);
        n int := coalesce(array_length(c, 1), 0);
        grams text[] := '{}';
      BEGIN
        FOR i IN 1..n LOOP
          CONTINUE WHEN c[i] = ' ';
          grams := grams || c[i];
          IF i < n AND c[i + 1] <> ' ' THEN
            grams := grams || (c[i] || c[i + 1]);
          END IF;
        END LOOP;
        RETURN grams;
      END $$`);
    await q.query(
      `CREATE INDEX posts_search_trgm_idx ON posts USING gin (workspace_id, (title || ' ' || body) gin_trgm_ops)`,
    );
    await q.query(
      `CREATE INDEX posts_search_short_idx ON posts USING gin (workspace_id, chorus_short_grams(title || ' ' || body))`,
    );
    await q.query(`DROP INDEX posts_search_idx`);
    await q.query(`DROP FUNCTION chorus_search_term_keys(uuid, text[])`);
    await q.query(`DROP FUNCTION chorus_search_keys(uuid, text)`);
  }
}

/** An interrupted CREATE INDEX CONCURRENTLY leaves an invalid index behind, which IF NOT EXISTS would keep. */
async function dropIfInvalid(q: QueryRunner, index: string): Promise<void> {
  const [invalid] = await q.query(`SELECT 1 FROM pg_index WHERE indexrelid = to_regclass($1) AND NOT indisvalid`, [index]);
  if (invalid) await q.query(`DROP INDEX CONCURRENTLY ${index}`);
}
