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
    await q.query(`
      CREATE FUNCTION chorus_short_grams(t text) RETURNS text[]
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
        SELECT coalesce(array_agg(DISTINCT g), '{}')
          FROM (SELECT lower(t) AS l) s,
               LATERAL (SELECT substr(s.l, i, 1) FROM generate_series(1, length(s.l)) i
                        UNION ALL
                        SELECT substr(s.l, i, 2) FROM generate_series(1, length(s.l) - 1) i) grams (g)
         WHERE position(' ' IN g) = 0
      $$`);
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
