"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.Initial1763740000000 = void 0;
class Initial1763740000000 {
    name = 'Initial1763740000000';
    async up(q) {
        await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
        await q.query(`
      CREATE TABLE workspaces (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
        name text NOT NULL,
        plan text NOT NULL CHECK (plan IN ('free', 'pro', 'business')),
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
        await q.query(`
      CREATE TABLE people (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('member', 'user', 'guest')),
        name text NOT NULL,
        email text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, id)
      )`);
        await q.query(`CREATE UNIQUE INDEX people_email_key ON people (workspace_id, lower(email)) WHERE email IS NOT NULL`);
        await q.query(`
      CREATE TABLE api_keys (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        key_hash text NOT NULL UNIQUE,
        key_prefix text NOT NULL,
        created_by uuid NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        revoked_at timestamptz(3),
        PRIMARY KEY (workspace_id, id),
        FOREIGN KEY (workspace_id, created_by) REFERENCES people (workspace_id, id)
      )`);
        await q.query(`CREATE UNIQUE INDEX api_keys_id_key ON api_keys (id)`);
        await q.query(`
      CREATE TABLE boards (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        slug text NOT NULL CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
        name text NOT NULL,
        description text,
        public boolean NOT NULL DEFAULT true,
        notify_voters boolean NOT NULL DEFAULT true,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, id),
        UNIQUE (workspace_id, slug)
      )`);
        await q.query(`CREATE SEQUENCE posts_id_seq AS bigint`);
        await q.query(`
      CREATE TABLE posts (
        workspace_id uuid NOT NULL,
        id bigint NOT NULL DEFAULT nextval('posts_id_seq'),
        board_id uuid NOT NULL,
        title text NOT NULL,
        body text NOT NULL DEFAULT '',
        category text NOT NULL DEFAULT 'feature' CHECK (category IN ('feature', 'bug', 'improvement')),
        status text NOT NULL DEFAULT 'open'
          CHECK (status IN ('open', 'planned', 'in_progress', 'done', 'closed')),
        votes integer NOT NULL DEFAULT 0 CHECK (votes >= 0),
        comments_count integer NOT NULL DEFAULT 0 CHECK (comments_count >= 0),
        pinned boolean NOT NULL DEFAULT false,
        merged_into_id bigint,
        author_id uuid NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, id),
        FOREIGN KEY (workspace_id, board_id) REFERENCES boards (workspace_id, id),
        FOREIGN KEY (workspace_id, author_id) REFERENCES people (workspace_id, id),
        FOREIGN KEY (workspace_id, merged_into_id) REFERENCES posts (workspace_id, id),
        CHECK (merged_into_id IS DISTINCT FROM id)
      )`);
        await q.query(`ALTER SEQUENCE posts_id_seq OWNED BY posts.id`);
        for (const [name, filter] of [
            ['all', ''],
            ['board', 'board_id, '],
            ['status', 'status, '],
            ['board_status', 'board_id, status, '],
        ]) {
            await q.query(`CREATE INDEX posts_new_${name}_idx ON posts (workspace_id, ${filter}created_at DESC, id DESC)`);
            await q.query(`CREATE INDEX posts_top_${name}_idx ON posts (workspace_id, ${filter}votes DESC, created_at DESC, id DESC)`);
        }
        await q.query(`CREATE INDEX posts_title_trgm_idx ON posts USING gin (title gin_trgm_ops)`);
        await q.query(`CREATE INDEX posts_body_trgm_idx ON posts USING gin (body gin_trgm_ops)`);
        await q.query(`
      CREATE TABLE votes (
        workspace_id uuid NOT NULL,
        post_id bigint NOT NULL,
        person_id uuid NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, post_id, person_id),
        FOREIGN KEY (workspace_id, post_id) REFERENCES posts (workspace_id, id),
        FOREIGN KEY (workspace_id, person_id) REFERENCES people (workspace_id, id)
      )`);
        await q.query(`CREATE SEQUENCE comments_id_seq AS bigint`);
        await q.query(`
      CREATE TABLE comments (
        workspace_id uuid NOT NULL,
        id bigint NOT NULL DEFAULT nextval('comments_id_seq'),
        post_id bigint NOT NULL,
        author_id uuid NOT NULL,
        body text NOT NULL,
        official boolean NOT NULL DEFAULT false,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, id),
        FOREIGN KEY (workspace_id, post_id) REFERENCES posts (workspace_id, id),
        FOREIGN KEY (workspace_id, author_id) REFERENCES people (workspace_id, id)
      )`);
        await q.query(`ALTER SEQUENCE comments_id_seq OWNED BY comments.id`);
        await q.query(`CREATE INDEX comments_post_idx ON comments (workspace_id, post_id, created_at, id)`);
        await q.query(`
      CREATE TABLE status_changes (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        post_id bigint NOT NULL,
        from_status text NOT NULL,
        to_status text NOT NULL,
        merged_into_id bigint,
        changed_by uuid NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, id),
        FOREIGN KEY (workspace_id, post_id) REFERENCES posts (workspace_id, id),
        FOREIGN KEY (workspace_id, changed_by) REFERENCES people (workspace_id, id)
      )`);
        await q.query(`CREATE INDEX status_changes_post_idx ON status_changes (workspace_id, post_id, created_at)`);
        await q.query(`
      CREATE TABLE outbox_events (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        type text NOT NULL,
        data json NOT NULL,
        actor_id uuid,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        dispatched_at timestamptz(3),
        PRIMARY KEY (workspace_id, id)
      )`);
        await q.query(`CREATE INDEX outbox_events_pending_idx ON outbox_events (created_at) WHERE dispatched_at IS NULL`);
    }
    async down(q) {
        for (const table of ['outbox_events', 'status_changes', 'comments', 'votes', 'posts', 'boards', 'api_keys', 'people', 'workspaces']) {
            await q.query(`DROP TABLE IF EXISTS ${table}`);
        }
    }
}
exports.Initial1763740000000 = Initial1763740000000;
//# sourceMappingURL=1763740000000-Initial.js.map