"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.WorkspaceSearch1763790000001 = void 0;
class WorkspaceSearch1763790000001 {
    name = 'WorkspaceSearch1763790000001';
    async up(q) {
        await q.query(`CREATE EXTENSION IF NOT EXISTS btree_gin`);
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
        await q.query(`CREATE INDEX posts_search_trgm_idx ON posts USING gin (workspace_id, (title || ' ' || body) gin_trgm_ops)`);
        await q.query(`CREATE INDEX posts_search_short_idx ON posts USING gin (workspace_id, chorus_short_grams(title || ' ' || body))`);
    }
    async down(q) {
        await q.query(`DROP INDEX posts_search_short_idx`);
        await q.query(`DROP INDEX posts_search_trgm_idx`);
        await q.query(`DROP FUNCTION chorus_short_grams(text)`);
        await q.query(`CREATE INDEX posts_title_trgm_idx ON posts USING gin (title gin_trgm_ops)`);
        await q.query(`CREATE INDEX posts_body_trgm_idx ON posts USING gin (body gin_trgm_ops)`);
    }
}
exports.WorkspaceSearch1763790000001 = WorkspaceSearch1763790000001;
//# sourceMappingURL=1763790000001-WorkspaceSearch.js.map