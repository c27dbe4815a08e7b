import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search indexes that lead with workspace_id (btree_gin), so that a workspace's search reads
 * only that workspace's entries, whatever other tenants write:
 * - trigrams of `title || ' ' || body`, for terms of 3 characters or more;
 * - the distinct 1- and 2-character pieces of the same text, lower-cased
 *   (chorus_short_grams), for shorter terms, which have no trigram.
 * A search term never holds white space, so it cannot match across the space between title
 * and body: matching the joined text is matching the title or the body.
 */
export class WorkspaceSearch1763790000001 implements MigrationInterface {
  name = 'WorkspaceSearch1763790000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS btree_gin`);
    // One pass over the characters (a loop in SQL over substr() is quadratic on long texts).
    // Duplicates are left in: GIN keeps each key once per row anyway.
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
    await q.query(`DROP INDEX posts_title_trgm_idx`);
    await q.query(`DROP INDEX posts_body_trgm_idx`);
    await q.query(
      `CREATE INDEX posts_search_trgm_idx ON posts USING gin (workspace_id, (title || ' ' || body) gin_trgm_ops)`,
    );
    await q.query(
      `CREATE INDEX posts_search_short_idx ON posts USING gin (workspace_id, chorus_short_grams(title || ' ' || body))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX posts_search_short_idx`);
    await q.query(`DROP INDEX posts_search_trgm_idx`);
    await q.query(`DROP FUNCTION chorus_short_grams(text)`);
    await q.query(`CREATE INDEX posts_title_trgm_idx ON posts USING gin (title gin_trgm_ops)`);
    await q.query(`CREATE INDEX posts_body_trgm_idx ON posts USING gin (body gin_trgm_ops)`);
  }
}
