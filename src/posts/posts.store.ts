import { Injectable } from '@nestjs/common';
import { Database, named, Queryable, Sql, Statement, statement, Tx } from '../database/sql';
import { ISO_TIMESTAMPS } from '../database/timestamps';
import type { Page } from '../common/page.query';
import type { ModerationState, PostCategory, PostStatus } from './post.entity';
import { PostRow, postSelect } from './post.mapper';

/** What a list asks of the posts table; the board is already looked up. */
export interface PostQuery {
  boardId?: string;
  /** Only posts of public boards (the public site's roadmap). */
  publicOnly?: boolean;
  status?: PostStatus;
  /** Search terms, none empty. */
  terms: string[];
  sort: 'new' | 'top';
  includeMerged: boolean;
  /** Which posts: the approved ones (every list of the site), or the held or rejected ones (the API's filter). */
  moderation: ModerationState;
  limit: number;
  offset: number;
}

export interface NewPostRow {
  boardSlug: string;
  title: string;
  body: string;
  category: PostCategory;
  authorId: string;
  moderation: ModerationState;
}

/** A post an import brings (times as ISO 8601, none: now). */
export interface ImportedPost {
  boardId: string;
  title: string;
  body: string;
  category: PostCategory;
  status: PostStatus;
  pinned: boolean;
  authorId: string;
  moderation: ModerationState;
  createdAt: string | null;
  updatedAt: string | null;
}

/** A post as a change locks it. */
export interface LockedPost {
  status: PostStatus;
  mergedIntoId: number | null;
  moderation: ModerationState;
  authorId: string;
}

const ORDER = {
  new: 'p.created_at DESC, p.id DESC',
  top: 'p.votes DESC, p.created_at DESC, p.id DESC',
} as const;

/**
 * How many posts, in the order asked, a search first walks for its page: 40 times the rows
 * the page needs (offset + limit + 1), so that a term in one post in 40 or more is answered
 * there, deep pages included; at least 1,000, and at most 20,000 (walking 41,000 posts that
 * did not fill the page took 185-390 ms on a busy 2-core machine).
 */
/** The statements of pages without search terms, by which conditions they have and their order (see PostsStore.list). */
const pagesByShape = new Map<string, Sql>();

const walkLength = (needed: number) => Math.min(20_000, Math.max(1_000, 40 * needed));

/** `%`, `_` and `\` stand for themselves in a search term. */
const likePattern = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const CREATE = statement(
  'post_create',
  `WITH board AS (SELECT id FROM boards WHERE workspace_id = $1 AND slug = $2),
        inserted AS (
          INSERT INTO posts (workspace_id, board_id, title, body, category, author_id, votes, moderation)
          SELECT $1, board.id, $3, $4, $5, $6, 1, $7 FROM board
          RETURNING *),
        vote AS (INSERT INTO votes (workspace_id, post_id, person_id) SELECT workspace_id, id, author_id FROM inserted)
   ${postSelect('inserted')}`,
  ISO_TIMESTAMPS,
);
const GET = statement('post_get', `${postSelect()} WHERE p.workspace_id = $1 AND p.id = $2`, ISO_TIMESTAMPS);
const LOCK = statement(
  'post_lock',
  `SELECT id, status, merged_into_id, moderation, author_id FROM posts WHERE workspace_id = $1 AND id = ANY ($2::bigint[]) ORDER BY id FOR UPDATE`,
);
const PEEK = statement('post_peek', `SELECT id, status, merged_into_id, moderation, author_id FROM posts WHERE workspace_id = $1 AND id = ANY ($2::bigint[])`);
const SET_STATUS = statement('post_set_status', `UPDATE posts SET status = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2`);
const RECORD_CHANGE = statement(
  'post_status_change',
  `INSERT INTO status_changes (workspace_id, post_id, from_status, to_status, merged_into_id, changed_by) VALUES ($1, $2, $3, $4, $5, $6)`,
);
const MARK_MERGED = statement(
  'post_mark_merged',
  `UPDATE posts SET status = 'closed', merged_into_id = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2`,
);
const COPY_VOTES = statement(
  'post_copy_votes',
  `INSERT INTO votes (workspace_id, post_id, person_id, created_at)
   SELECT workspace_id, $3, person_id, created_at FROM votes WHERE workspace_id = $1 AND post_id = $2
   ON CONFLICT DO NOTHING`,
);
const RECOUNT = statement(
  'post_recount',
  `UPDATE posts SET votes = (SELECT count(*) FROM votes WHERE workspace_id = $1 AND post_id = $2) WHERE workspace_id = $1 AND id = $2`,
);
const CAST_VOTE = statement(
  'post_cast_vote',
  `INSERT INTO votes (workspace_id, post_id, person_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING person_id`,
);
const REMOVE_VOTES = statement(
  'post_remove_votes',
  `DELETE FROM votes WHERE workspace_id = $1 AND post_id = ANY ($2::bigint[]) AND person_id = $3 RETURNING post_id`,
);
const VOTED_BY = statement(
  'post_voted_by',
  `SELECT post_id FROM votes WHERE workspace_id = $1 AND post_id = ANY ($2::bigint[]) AND person_id = $3`,
);
const VOTERS = statement(
  'post_voters',
  `SELECT p.name FROM votes v JOIN people p ON p.workspace_id = v.workspace_id AND p.id = v.person_id
    WHERE v.workspace_id = $1 AND v.post_id = $2
    ORDER BY v.created_at DESC, v.person_id DESC LIMIT $3 OFFSET $4`,
);
const COUNT_COMMENT = statement(
  'post_count_comment',
  `UPDATE posts SET comments_count = comments_count + 1 WHERE workspace_id = $1 AND id = $2`,
);
const UNCOUNT_COMMENT = statement(
  'post_uncount_comment',
  `UPDATE posts SET comments_count = greatest(comments_count - 1, 0) WHERE workspace_id = $1 AND id = $2`,
);
const SET_MODERATION = statement('post_set_moderation', `UPDATE posts SET moderation = $3 WHERE workspace_id = $1 AND id = $2`);
const REJECT_PENDING_OF = statement(
  'post_reject_pending_of',
  `UPDATE posts SET moderation = 'rejected' WHERE workspace_id = $1 AND author_id = $2 AND moderation = 'pending' RETURNING id`,
);
const NEWEST_PUBLIC = statement(
  'post_newest_public',
  `SELECT p.id, p.title, b.slug AS board_slug, p.updated_at
     FROM posts p JOIN boards b ON b.workspace_id = p.workspace_id AND b.id = p.board_id
    WHERE p.workspace_id = $1 AND b.public AND p.merged_into_id IS NULL AND p.moderation = 'approved'
    ORDER BY p.id DESC LIMIT $2`,
);
const NEXT_IDS = statement('post_next_ids', `SELECT nextval('posts_id_seq')::text AS id FROM generate_series(1, $1)`);
/**
 * An import's posts, and the votes on them, wait in temporary tables of the importer's session
 * (dropped at its commit) until the importer has read their votes (and the comments on them):
 * then each post is written once, counts included (`IMPORT_SETTLE_POSTS`), a range of ids at a
 * time. Counting them on rows already written took an update of every post, which rewrites all
 * of its index entries, its search keys too: as long as inserting the posts.
 */
const STAGE = [
  `CREATE TEMP TABLE IF NOT EXISTS import_posts (
     id bigint PRIMARY KEY, board_id uuid, title text, body text, category text, status text, pinned boolean, author_id uuid,
     created_at timestamptz, updated_at timestamptz, moderation text) ON COMMIT DROP`,
  // The key drops a vote listed twice as it comes (the first is kept), so the importer counts exactly.
  `CREATE TEMP TABLE IF NOT EXISTS import_votes (post_id bigint, person_id uuid, created_at timestamptz, PRIMARY KEY (post_id, person_id)) ON COMMIT DROP`,
  `CREATE TEMP TABLE IF NOT EXISTS import_post_counts (post_id bigint PRIMARY KEY, votes integer, comments integer) ON COMMIT DROP`,
];
const IMPORT = statement(
  'post_import',
  `INSERT INTO import_posts (id, board_id, title, body, category, status, pinned, author_id, created_at, updated_at, moderation)
   SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::uuid[],
                        $9::timestamptz[], $10::timestamptz[], $11::text[])`,
);
const IMPORT_HELD_VOTES = statement(
  'post_import_held_votes',
  `INSERT INTO import_votes (post_id, person_id, created_at) SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::timestamptz[])
   ON CONFLICT DO NOTHING RETURNING post_id`,
);
const IMPORT_HELD_COUNTS = statement(
  'post_import_held_counts',
  `INSERT INTO import_post_counts (post_id, votes, comments) SELECT * FROM unnest($1::bigint[], $2::integer[], $3::integer[])`,
);
const IMPORT_SETTLE_POSTS = statement(
  'post_import_settle',
  `INSERT INTO posts (workspace_id, id, board_id, title, body, category, status, pinned, author_id, created_at, updated_at, votes, comments_count,
                      moderation)
   SELECT $1, s.id, s.board_id, s.title, s.body, s.category, s.status, s.pinned, s.author_id,
          coalesce(s.created_at, now()), coalesce(s.updated_at, s.created_at, now()), coalesce(c.votes, 0), coalesce(c.comments, 0),
          s.moderation
     FROM import_posts s LEFT JOIN import_post_counts c ON c.post_id = s.id
    WHERE s.id >= $2 AND s.id < $3
    ORDER BY s.id`,
);
// No conflict can be: the posts are new, and import_votes holds a person's vote on one once.
const IMPORT_SETTLE_VOTES = statement(
  'post_import_settle_votes',
  `INSERT INTO votes (workspace_id, post_id, person_id, created_at)
   SELECT $1, v.post_id, v.person_id, coalesce(v.created_at, now()) FROM import_votes v WHERE v.post_id >= $2 AND v.post_id < $3`,
);
const IMPORT_UNSTAGE = `TRUNCATE import_posts, import_votes, import_post_counts`;
/** Above every id: a range's end that leaves none out. */
const MAX_ID = '9223372036854775807';
const IMPORT_VOTES = statement(
  'post_import_votes',
  `INSERT INTO votes (workspace_id, post_id, person_id, created_at)
   SELECT $1, v.post_id, v.person_id, coalesce(v.created_at, now())
     FROM unnest($2::bigint[], $3::uuid[], $4::timestamptz[]) AS v(post_id, person_id, created_at)
   ON CONFLICT DO NOTHING
   RETURNING post_id`,
);
const ADD_COUNTS = statement(
  'post_add_counts',
  `UPDATE posts SET votes = posts.votes + d.votes, comments_count = posts.comments_count + d.comments
     FROM unnest($2::bigint[], $3::integer[], $4::integer[]) AS d(id, votes, comments)
    WHERE posts.workspace_id = $1 AND posts.id = d.id`,
);
const SET_MERGED_INTO = statement(
  'post_set_merged_into',
  `UPDATE posts SET merged_into_id = m.target
     FROM unnest($2::bigint[], $3::bigint[]) AS m(id, target)
    WHERE posts.workspace_id = $1 AND posts.id = m.id`,
);
const EXISTS = statement('post_exists', `SELECT 1 FROM posts WHERE workspace_id = $1 AND id = $2`);

/** How alike two titles must be (pg_trgm's similarity(), 0 to 1) for one to be suggested beside the other. */
export const SIMILARITY_THRESHOLD = 0.3;
/** How many similar posts are suggested at most. */
export const SIMILAR_LIMIT = 5;

/** The newest posts of the board that tell which of a title's words are frequent there, and are candidates themselves. */
export const SIMILAR_SAMPLE = 500;
/** The words of a title that count (its longest): their number shapes the statement. */
const SIMILAR_WORDS = 6;
/** How many candidates, the best by shared words, are ranked by trigram similarity. */
const SIMILAR_RANKED = 60;
/** How many posts one word (or pair of words) of the title brings as candidates at most. */
const SIMILAR_PER_PROBE = 100;

const each = (f: (i: number) => string, sep: string) => Array.from({ length: SIMILAR_WORDS }, (_, i) => f(i + 1)).join(sep);
/** The weight of the title's word i when a candidate's title holds it: rarer in the sample, heavier (its IDF). */
const weight = (i: number) => `CASE WHEN strpos(c.lt, f.w${i}) > 0 THEN f.g${i} ELSE 0 END`;

/**
 * A board's posts (approved, not merged) whose titles are most like $3 ($4: a post left out, 0
 * for none), best first, each with its pg_trgm similarity() (none under SIMILARITY_THRESHOLD).
 * Ties: more votes first, then newer. Every table named with the workspace ($1): one shard's
 * statement on Citus.
 *
 * Ranking every title of a large board by trigrams is too slow (1 to 8 s at a million posts:
 * common words share their trigrams with much of a board), so similarity() is computed on
 * SIMILAR_RANKED candidates at most, the posts sharing the most of the title's words, each word
 * weighted by its rarity on the board:
 * 1. `words`: the title's words (chorus_title_words: lower-cased, split at anything not a letter
 *    or digit, 3 characters or more), its SIMILAR_WORDS longest.
 * 2. `sample`: the board's SIMILAR_SAMPLE newest posts. How many of them hold each word (`c<i>`;
 *    a title holds a word its lower-cased text contains: "exports" holds "export") tells how
 *    frequent it is on the board without reading any index entry: a word in none or one
 *    of them is rare (most likely under 0.5% of the board), one in many is frequent. Weight of a
 *    word (`g<i>`): ln(501 / (1 + c<i>)).
 * 3. `anchors`: the title's two rarest words, if in at most 2 of the sample. `probes`: each
 *    anchor in at most one of the sample alone, and each anchor with each of the three rarest
 *    other words (posts having both). They are read from posts_similar_words_idx
 *    (SimilarPostsByWords), where a pair costs what its rarer word's entry does; at most
 *    SIMILAR_PER_PROBE posts each. A frequent word alone is never read from the index: one in a
 *    quarter of a million titles took 90 ms to read, against 2 ms for 4,000.
 * 4. `ranked`: the sample's posts and the probes', by the sum of the weights of the title's
 *    words they hold, the best SIMILAR_RANKED; similarity() on those only.
 * On a board of up to SIMILAR_SAMPLE posts every post is a candidate, and one sharing no word
 * with the title is still ranked when fewer than SIMILAR_RANKED share any. A title made of
 * frequent words only is compared with the board's newest posts (those of the sample holding the
 * most of its words). A word absent from the newest posts but frequent among older ones is read
 * from the index whole: slower (tens of ms at a hundred thousand posts holding it), still right.
 *
 * Sent by name, and planned once per connection (its generic plan, which PostgreSQL keeps after
 * 5 executions: its cost is that of the plans made for values). Sent as text and planned at
 * each call, planning took about 1 ms quiet and 2 to 8 ms at load 10. A generic plan takes
 * every workspace and board to be small: with the board tested in a probe's scan, it read the
 * board's posts from posts_new_board_idx to AND them with the probe's (a million entries, 150
 * ms). So a probe's scan has no condition on the board, and the only index it can read is
 * posts_similar_words_idx: its LIMIT keeps the board's test out of it (a condition is never
 * moved into a subquery with a LIMIT), and the test drops, after it, only the posts of another
 * workspace or board whose keys hold the probe's (a collision of 64-bit hashes). With the test
 * before the LIMIT, the generic plan expected the board to keep one row in 5,000 (so no row
 * saved by the LIMIT): its cost, 290,000, turned JIT on (30 ms). `scope`: what a probe's scan
 * is also limited by (on Citus the workspace, to stay in one shard).
 */
const similarText = (scope: string) => `WITH title AS MATERIALIZED (
     SELECT array(SELECT t.w FROM unnest(chorus_title_words($3)) t(w) ORDER BY length(t.w) DESC, t.w LIMIT ${SIMILAR_WORDS}) AS w),
   words AS MATERIALIZED (SELECT ${each((i) => `a.w[${i}] AS w${i}`, ', ')} FROM title a),
   sample AS MATERIALIZED (
     SELECT p.id, p.title, p.votes, lower(p.title) AS lt FROM posts p
      WHERE p.workspace_id = $1 AND p.board_id = $2 AND p.merged_into_id IS NULL AND p.moderation = 'approved' AND p.id <> $4
      ORDER BY p.created_at DESC, p.id DESC LIMIT ${SIMILAR_SAMPLE}),
   freq AS MATERIALIZED (
     SELECT w.*, n.* FROM words w CROSS JOIN LATERAL (
       SELECT ${each((i) => `count(*) FILTER (WHERE strpos(s.lt, w.w${i}) > 0) AS c${i}`, ', ')} FROM sample s) n),
   weights AS MATERIALIZED (SELECT ${each((i) => `f.w${i}, ln(${SIMILAR_SAMPLE + 1}::float8 / (1 + f.c${i})) AS g${i}`, ', ')} FROM freq f),
   terms AS MATERIALIZED (
     SELECT v.w, v.c FROM freq f CROSS JOIN LATERAL (VALUES ${each((i) => `(f.w${i}, f.c${i})`, ', ')}) v(w, c) WHERE v.w IS NOT NULL),
   anchors AS MATERIALIZED (SELECT t.w, t.c FROM terms t WHERE t.c <= 2 ORDER BY t.c, length(t.w) DESC, t.w LIMIT 2),
   probes AS (
     SELECT a.w AS probe FROM anchors a WHERE a.c <= 1
     UNION
     SELECT least(a.w, o.w) || ' ' || greatest(a.w, o.w) FROM anchors a CROSS JOIN LATERAL (
       SELECT t.w FROM terms t WHERE t.w <> a.w ORDER BY t.c, length(t.w) DESC, t.w LIMIT 3) o),
   found AS (
     SELECT DISTINCT ON (x.id) x.id, x.title, x.votes FROM probes pr CROSS JOIN LATERAL (
       SELECT p.id, p.title, p.votes FROM (
         SELECT p.id, p.title, p.votes, p.workspace_id, p.board_id FROM posts p
          WHERE ${scope}chorus_title_word_keys(p.workspace_id, p.board_id, p.title) @> chorus_title_word_keys($1, $2, pr.probe)
            AND p.merged_into_id IS NULL AND p.moderation = 'approved' AND p.id <> $4
          LIMIT ${SIMILAR_PER_PROBE}) p
        WHERE p.workspace_id = $1 AND p.board_id = $2) x
      WHERE x.id NOT IN (SELECT s.id FROM sample s)
      ORDER BY x.id),
   candidates AS (
     SELECT s.id, s.title, s.votes, s.lt FROM sample s
     UNION ALL
     SELECT f.id, f.title, f.votes, lower(f.title) FROM found f),
   ranked AS MATERIALIZED (
     SELECT c.id, c.votes, similarity(c.title, $3) AS similarity FROM (
       SELECT c.* FROM candidates c CROSS JOIN weights f
        ORDER BY ${each(weight, ' + ')} DESC, c.id DESC LIMIT ${SIMILAR_RANKED}) c),
   best AS MATERIALIZED (
     SELECT r.id, r.similarity FROM ranked r WHERE r.similarity >= ${SIMILARITY_THRESHOLD}
      ORDER BY r.similarity DESC, r.votes DESC, r.id DESC LIMIT ${SIMILAR_LIMIT})
   SELECT r.*, best.similarity FROM (${postSelect(`(SELECT p.* FROM best JOIN posts p ON p.workspace_id = $1 AND p.id = best.id)`)}) r
     JOIN best ON best.id = r.id
    ORDER BY best.similarity DESC, r.votes DESC, r.id DESC`;
export const SIMILAR = statement('post_similar', similarText(''), ISO_TIMESTAMPS);
const CITUS_SIMILAR = statement('post_similar_citus', similarText('p.workspace_id = $1 AND '), ISO_TIMESTAMPS);

/**
 * The posts, votes and status_changes tables: every statement that reads or writes them for
 * the posts feature, and every write of them from anywhere (a comment counts on its post here).
 */
@Injectable()
export class PostsStore {
  constructor(protected readonly db: Database) {}

  /** A page of posts (limit + 1 rows, to tell whether there is more), in the order asked. */
  async list(workspaceId: string, query: PostQuery): Promise<PostRow[]> {
    const params: unknown[] = [workspaceId];
    const where = ['p.workspace_id = $1'];
    if (query.boardId) {
      params.push(query.boardId);
      where.push(`p.board_id = $${params.length}`);
    }
    if (query.publicOnly) where.push('p.board_id IN (SELECT b.id FROM boards b WHERE b.workspace_id = $1 AND b.public)');
    if (query.status) {
      params.push(query.status);
      where.push(`p.status = $${params.length}`);
    }
    if (!query.includeMerged) where.push('p.merged_into_id IS NULL');
    // Not in the indexes the list walks: one more test of a row the walk reads anyway (held rows are few).
    params.push(query.moderation);
    where.push(`p.moderation = $${params.length}`);
    // Terms never hold white space, so matching `title || ' ' || body` is matching either one.
    const search = query.terms.map((term) => {
      params.push(likePattern(term));
      return `(p.title || ' ' || p.body) ILIKE $${params.length}`;
    });
    const order = ORDER[query.sort];
    params.push(query.limit + 1, query.offset);
    const [limit, offset] = [`$${params.length - 1}`, `$${params.length}`];
    const read = (page: string, values = params) => this.db.rows<PostRow>(named('post_list', `${postSelect(page)} ORDER BY ${order}`, ISO_TIMESTAMPS), values);
    if (search.length === 0) {
      // Without search terms the text depends only on which conditions there are: made once for each.
      const shape = `${query.boardId ? 'b' : ''}${query.publicOnly ? 'p' : ''}${query.status ? 's' : ''}${query.includeMerged ? 'm' : ''} ${query.sort}`;
      let sql = pagesByShape.get(shape);
      if (!sql) {
        sql = named('post_list', `${postSelect(`(SELECT * FROM posts p WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset})`)} ORDER BY ${order}`, ISO_TIMESTAMPS);
        pagesByShape.set(shape, sql);
      }
      return this.db.rows<PostRow>(sql, params);
    }
    const matches = [...where, ...search].join(' AND ');
    // A wrong guess of how frequent the terms are is slow either way: walking the workspace
    // in order for a term that is rare in it, or fetching every match of a term that is
    // everywhere (250,000 posts at a million, 2 s). So: first a walk of the posts in order,
    // which stops as soon as the page is full and is enough for a frequent term, deep pages
    // included; then, when the walk did not fill the page, every candidate that the
    // workspace's search keys give (WorkspaceSearchKeys), checked with ILIKE. The fence
    // (OFFSET 0) keeps the other conditions out of the index scan: the LIMIT cannot pull the
    // planner back to the ordered walk, and no other index on the workspace is read beside it.
    const needed = query.offset + query.limit + 1;
    const walk = walkLength(needed);
    if (needed <= walk) {
      const walked = await read(
        `(SELECT * FROM (SELECT * FROM posts p WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT $${params.length + 1}) p
           WHERE ${search.join(' AND ')} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset})`,
        [...params, walk],
      );
      if (walked.length > query.limit) return walked;
    }
    const keys = `${this.searchScope()}chorus_search_keys(p.workspace_id, p.title || ' ' || p.body) @> chorus_search_term_keys($1::uuid, $${params.length + 1}::text[])`;
    return read(
      `(SELECT * FROM (SELECT * FROM posts p WHERE ${keys} OFFSET 0) p WHERE ${matches} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset})`,
      [...params, query.terms],
    );
  }

  /** The similar posts' statement: a probe's fenced index scan limited by its keys alone on one server. */
  protected similarStatement(): Statement {
    return SIMILAR;
  }

  /** What the search keys' index scan is also limited by: nothing more on one server. */
  protected searchScope(): string {
    return '';
  }

  async get(q: Queryable, workspaceId: string, id: number): Promise<PostRow | undefined> {
    return (await q.rows<PostRow>(GET, [workspaceId, id]))[0];
  }

  /** Up to SIMILAR_LIMIT posts of a board whose titles are most like `title`, best first, each with its similarity. */
  similar(workspaceId: string, boardId: string, title: string, exceptId = 0): Promise<(PostRow & { similarity: number })[]> {
    return this.db.rows(this.similarStatement(), [workspaceId, boardId, title, exceptId]);
  }

  async exists(workspaceId: string, id: number): Promise<boolean> {
    return (await this.db.rows(EXISTS, [workspaceId, id])).length > 0;
  }

  /** A new post with its author's vote, read back; none when the board is not there. */
  async create(tx: Tx, workspaceId: string, post: NewPostRow): Promise<PostRow | undefined> {
    const [row] = await tx.rows<PostRow>(CREATE, [workspaceId, post.boardSlug, post.title, post.body, post.category, post.authorId, post.moderation]);
    return row;
  }

  /** Locks posts of a workspace for the transaction, in id order so that two merges cannot deadlock. */
  async lock(tx: Tx, workspaceId: string, ids: number[]): Promise<Map<number, LockedPost>> {
    return this.byId(await tx.rows(LOCK, [workspaceId, ids]));
  }

  /** The same as `lock`, without locking (a check made before the change). */
  async peek(workspaceId: string, ids: number[]): Promise<Map<number, LockedPost>> {
    return this.byId(await this.db.rows(PEEK, [workspaceId, ids]));
  }

  private byId(
    rows: { id: string; status: PostStatus; merged_into_id: string | null; moderation: ModerationState; author_id: string }[],
  ): Map<number, LockedPost> {
    return new Map(
      rows.map((row) => [
        Number(row.id),
        {
          status: row.status,
          mergedIntoId: row.merged_into_id === null ? null : Number(row.merged_into_id),
          moderation: row.moderation,
          authorId: row.author_id,
        },
      ]),
    );
  }

  /** Approves, holds or rejects a post (locked by the caller). */
  setModeration(tx: Tx, workspaceId: string, postId: number, to: ModerationState): void {
    tx.send(SET_MODERATION, [workspaceId, postId, to]);
  }

  /** Rejects every held post of a person; answers their ids. */
  async rejectPendingOf(tx: Tx, workspaceId: string, personId: string): Promise<number[]> {
    return (await tx.rows<{ id: string }>(REJECT_PENDING_OF, [workspaceId, personId])).map((row) => Number(row.id));
  }

  /** Takes a comment off its post's count (one no longer approved). */
  uncountComment(tx: Tx, workspaceId: string, postId: number): void {
    tx.send(UNCOUNT_COMMENT, [workspaceId, postId]);
  }

  /** Sets a post's status, and records who changed it from what to what. */
  setStatus(tx: Tx, workspaceId: string, change: { postId: number; from: PostStatus; to: PostStatus; by: string }): void {
    tx.send(SET_STATUS, [workspaceId, change.postId, change.to]);
    tx.send(RECORD_CHANGE, [workspaceId, change.postId, change.from, change.to, null, change.by]);
  }

  /** Closes `postId` as merged into `into`, whose votes then count its voters once each. */
  merge(tx: Tx, workspaceId: string, change: { postId: number; into: number; from: PostStatus; by: string }): void {
    tx.send(COPY_VOTES, [workspaceId, change.postId, change.into]);
    tx.send(RECOUNT, [workspaceId, change.into]);
    tx.send(MARK_MERGED, [workspaceId, change.postId, change.into]);
    tx.send(RECORD_CHANGE, [workspaceId, change.postId, change.from, 'closed', change.into, change.by]);
  }

  /** Adds a person's vote, recounted; false when it was there already. */
  async castVote(tx: Tx, workspaceId: string, postId: number, personId: string): Promise<boolean> {
    const inserted = await tx.rows(CAST_VOTE, [workspaceId, postId, personId]);
    if (inserted.length > 0) tx.send(RECOUNT, [workspaceId, postId]);
    return inserted.length > 0;
  }

  /** Removes a person's vote from these posts, recounting each it was on; answers those. */
  async removeVotes(tx: Tx, workspaceId: string, postIds: number[], personId: string): Promise<number[]> {
    const removed = await tx.rows<{ post_id: string }>(REMOVE_VOTES, [workspaceId, postIds, personId]);
    const posts = [...new Set(removed.map((row) => Number(row.post_id)))];
    for (const postId of posts) tx.send(RECOUNT, [workspaceId, postId]);
    return posts;
  }

  async votedBy(workspaceId: string, personId: string, postIds: number[]): Promise<Set<number>> {
    const rows = await this.db.rows<{ post_id: string }>(VOTED_BY, [workspaceId, postIds, personId]);
    return new Set(rows.map((row) => Number(row.post_id)));
  }

  /** A page of a post's voters' names, newest vote first (limit + 1 rows). */
  voters(workspaceId: string, postId: number, page: Page): Promise<{ name: string }[]> {
    return this.db.rows(VOTERS, [workspaceId, postId, page.limit + 1, page.offset]);
  }

  newestPublic(workspaceId: string, limit: number): Promise<{ id: string; title: string; board_slug: string; updated_at: Date }[]> {
    return this.db.rows(NEWEST_PUBLIC, [workspaceId, limit]);
  }

  /** Makes the session's tables where an import's posts and their votes wait (importPosts, settleImported). */
  stageImports(tx: Tx): void {
    for (const sql of STAGE) tx.send(sql);
  }

  /**
   * Brings posts in from elsewhere (an import), in one statement, their times kept: they wait in
   * the session's import_posts (stageImports), with no vote and no comment yet, until
   * settleImported writes them. Answers their new ids, in order.
   */
  async importPosts(tx: Tx, posts: ImportedPost[]): Promise<number[]> {
    const ids = (await tx.rows<{ id: string }>(NEXT_IDS, [posts.length])).map((row) => row.id);
    tx.send(IMPORT, [
      ids,
      posts.map((p) => p.boardId),
      posts.map((p) => p.title),
      posts.map((p) => p.body),
      posts.map((p) => p.category),
      posts.map((p) => p.status),
      posts.map((p) => p.pinned),
      posts.map((p) => p.authorId),
      posts.map((p) => p.createdAt),
      posts.map((p) => p.updatedAt),
      posts.map((p) => p.moderation),
    ]);
    return ids.map(Number);
  }

  /**
   * Votes on posts that importPosts holds, held with them until settleImported (one a person and
   * post). Answers the post of each vote held, for the counts the importer gives settleImported.
   */
  async importHeldVotes(tx: Tx, votes: { postId: number; personId: string; createdAt: string | null }[]): Promise<number[]> {
    const held = await tx.rows<{ post_id: string }>(IMPORT_HELD_VOTES, [votes.map((v) => v.postId), votes.map((v) => v.personId), votes.map((v) => v.createdAt)]);
    return held.map((row) => Number(row.post_id));
  }

  /**
   * Writes the posts importPosts holds whose ids are in [from, to), each once with the votes and
   * comments given for it, then their votes. `to` null: all the rest, and the session's tables
   * are emptied.
   */
  settleImported(tx: Tx, workspaceId: string, from: number, to: number | null, counts: { postId: number; votes: number; comments: number }[], batch: number): void {
    for (let i = 0; i < counts.length; i += batch) {
      const some = counts.slice(i, i + batch);
      tx.send(IMPORT_HELD_COUNTS, [some.map((c) => c.postId), some.map((c) => c.votes), some.map((c) => c.comments)]);
    }
    const range = [workspaceId, from, to ?? MAX_ID];
    tx.send(IMPORT_SETTLE_POSTS, range);
    tx.send(IMPORT_SETTLE_VOTES, range);
    if (to === null) tx.send(IMPORT_UNSTAGE);
  }

  /** Marks imported posts as merged into others (both already there), without moving votes. */
  setMergedInto(tx: Tx, workspaceId: string, merges: { postId: number; into: number }[]): void {
    if (merges.length === 0) return;
    tx.send(SET_MERGED_INTO, [workspaceId, merges.map((m) => m.postId), merges.map((m) => m.into)]);
  }

  /**
   * Adds imported votes (one a person and post, those already there left out). Answers the post
   * of each vote added: the caller counts them (addCounts), once a post for the whole import.
   */
  async importVotes(tx: Tx, workspaceId: string, votes: { postId: number; personId: string; createdAt: string | null }[]): Promise<number[]> {
    const added = await tx.rows<{ post_id: string }>(IMPORT_VOTES, [
      workspaceId,
      votes.map((v) => v.postId),
      votes.map((v) => v.personId),
      votes.map((v) => v.createdAt),
    ]);
    return added.map((row) => Number(row.post_id));
  }

  /** Adds to posts' vote and comment counts (imported votes and comments). */
  addCounts(tx: Tx, workspaceId: string, counts: { postId: number; votes: number; comments: number }[]): void {
    if (counts.length === 0) return;
    tx.send(ADD_COUNTS, [workspaceId, counts.map((c) => c.postId), counts.map((c) => c.votes), counts.map((c) => c.comments)]);
  }

  /** Counts a new comment on its post; false when the post is not there. */
  async countComment(tx: Tx, workspaceId: string, postId: number): Promise<boolean> {
    return (await tx.count(COUNT_COMMENT, [workspaceId, postId])) > 0;
  }
}

const CITUS = {
  board: statement('post_create_board', `SELECT id FROM boards WHERE workspace_id = $1 AND slug = $2`),
  id: statement('post_create_id', `SELECT nextval('posts_id_seq')::text AS id`),
  insert: statement(
    'post_create_insert',
    `INSERT INTO posts (workspace_id, id, board_id, title, body, category, author_id, votes, moderation) VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8)`,
  ),
  vote: statement('post_create_vote', `INSERT INTO votes (workspace_id, post_id, person_id) VALUES ($1, $2, $3)`),
};

/**
 * On Citus a statement should name one workspace's shard. A CTE that inserts and joins the rows
 * it inserted is not one shard's statement (Citus would send those rows to every node and commit
 * on every node in two phases), so a create is the board and the post's id (the sequence lives
 * on the coordinator), then the post, its vote and the read, each a single-shard statement.
 */
@Injectable()
export class CitusPostsStore extends PostsStore {
  /** Else the search keys' candidates are looked for in every shard. */
  protected override searchScope(): string {
    return 'p.workspace_id = $1 AND ';
  }

  /** Else a probe's posts are looked for in every shard. */
  protected override similarStatement(): Statement {
    return CITUS_SIMILAR;
  }

  override async create(tx: Tx, workspaceId: string, post: NewPostRow): Promise<PostRow | undefined> {
    const [boards, [{ id }]] = await Promise.all([
      tx.rows<{ id: string }>(CITUS.board, [workspaceId, post.boardSlug]),
      tx.rows<{ id: string }>(CITUS.id),
    ]);
    if (boards.length === 0) return undefined;
    tx.send(CITUS.insert, [workspaceId, id, boards[0].id, post.title, post.body, post.category, post.authorId, post.moderation]);
    tx.send(CITUS.vote, [workspaceId, id, post.authorId]);
    return this.get(tx, workspaceId, Number(id));
  }
}
