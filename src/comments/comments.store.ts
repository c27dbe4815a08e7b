import { Injectable } from '@nestjs/common';
import { Database, Queryable, statement, Tx } from '../database/sql';
import type { ModerationState } from '../posts/post.entity';
import { COMMENT_SELECT, CommentRow } from './comment.mapper';

const SQL = {
  // The approved comments, and the viewer's own held ones ($3: none for the API).
  list: statement(
    'comment_list',
    `${COMMENT_SELECT} WHERE c.workspace_id = $1 AND c.post_id = $2 AND (c.moderation = 'approved' OR c.author_id = $3)
      ORDER BY c.created_at, c.id`,
  ),
  insert: statement(
    'comment_insert',
    `INSERT INTO comments (workspace_id, post_id, author_id, body, official, moderation) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
  ),
  lock: statement('comment_lock', `SELECT id, post_id, author_id, moderation FROM comments WHERE workspace_id = $1 AND id = $2 FOR UPDATE`),
  setModeration: statement('comment_set_moderation', `UPDATE comments SET moderation = $3 WHERE workspace_id = $1 AND id = $2`),
  rejectPendingOf: statement(
    'comment_reject_pending_of',
    `UPDATE comments SET moderation = 'rejected' WHERE workspace_id = $1 AND author_id = $2 AND moderation = 'pending' RETURNING id`,
  ),
  nextIds: statement('comment_next_ids', `SELECT nextval('comments_id_seq')::text AS id FROM generate_series(1, $1)`),
  importComments: statement(
    'comment_import',
    `INSERT INTO comments (workspace_id, id, post_id, author_id, body, official, created_at, moderation)
     SELECT $1, r.id, r.post_id, r.author_id, r.body, r.official, coalesce(r.created_at, now()), r.moderation
       FROM unnest($2::bigint[], $3::bigint[], $4::uuid[], $5::text[], $6::boolean[], $7::timestamptz[], $8::text[])
         AS r(id, post_id, author_id, body, official, created_at, moderation)`,
  ),
  stage: `CREATE TEMP TABLE IF NOT EXISTS import_comments (
            id bigint, post_id bigint, author_id uuid, body text, official boolean, created_at timestamptz, moderation text) ON COMMIT DROP`,
  importStaged: statement(
    'comment_import_staged',
    `INSERT INTO import_comments (id, post_id, author_id, body, official, created_at, moderation)
     SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::uuid[], $4::text[], $5::boolean[], $6::timestamptz[], $7::text[])`,
  ),
  stageIndex: `CREATE INDEX IF NOT EXISTS import_comments_post ON import_comments (post_id)`,
  settle: statement(
    'comment_import_settle',
    `INSERT INTO comments (workspace_id, id, post_id, author_id, body, official, created_at, moderation)
     SELECT $1, c.id, c.post_id, c.author_id, c.body, c.official, coalesce(c.created_at, now()), c.moderation
       FROM import_comments c WHERE c.post_id >= $2 AND c.post_id < $3 ORDER BY c.id`,
  ),
  unstage: `TRUNCATE import_comments`,
  get: statement('comment_get', `${COMMENT_SELECT} WHERE c.workspace_id = $1 AND c.id = $2`),
};

/** Above every post id: a range's end that leaves none out. */
const MAX_ID = '9223372036854775807';

/** A comment an import brings (its time as ISO 8601, none: now); its post counts it through PostsStore. */
export interface ImportedComment {
  postId: number;
  authorId: string;
  body: string;
  official: boolean;
  moderation: ModerationState;
  createdAt: string | null;
}

/** The comments table. */
@Injectable()
export class CommentsStore {
  constructor(private readonly db: Database) {}

  /** A post's approved comments, and the viewer's own held or rejected ones, oldest first. */
  list(workspaceId: string, postId: number, viewerId: string | null): Promise<CommentRow[]> {
    return this.db.rows<CommentRow>(SQL.list, [workspaceId, postId, viewerId]);
  }

  /** A comment, read. */
  async get(q: Queryable, workspaceId: string, id: number): Promise<CommentRow | undefined> {
    return (await q.rows<CommentRow>(SQL.get, [workspaceId, id]))[0];
  }

  /** Locks a comment for a change of its moderation. */
  async lock(tx: Tx, workspaceId: string, id: number): Promise<{ postId: number; authorId: string; moderation: ModerationState } | undefined> {
    const [row] = await tx.rows<{ post_id: string; author_id: string; moderation: ModerationState }>(SQL.lock, [workspaceId, id]);
    return row && { postId: Number(row.post_id), authorId: row.author_id, moderation: row.moderation };
  }

  setModeration(tx: Tx, workspaceId: string, id: number, to: ModerationState): void {
    tx.send(SQL.setModeration, [workspaceId, id, to]);
  }

  /** Rejects every held comment of a person; answers their ids. */
  async rejectPendingOf(tx: Tx, workspaceId: string, personId: string): Promise<number[]> {
    return (await tx.rows<{ id: string }>(SQL.rejectPendingOf, [workspaceId, personId])).map((row) => Number(row.id));
  }

  /**
   * Brings comments in from elsewhere (an import), in one statement, with their times kept.
   * Answers their new ids, in order. Their posts' counts are the caller's (PostsStore.addCounts).
   */
  async importComments(tx: Tx, workspaceId: string, comments: ImportedComment[]): Promise<number[]> {
    const ids = (await tx.rows<{ id: string }>(SQL.nextIds, [comments.length])).map((row) => row.id);
    tx.send(SQL.importComments, [workspaceId, ids, ...columns(comments)]);
    return ids.map(Number);
  }

  /** Makes the session's table where an import's comments wait (importStagedComments). */
  stageImports(tx: Tx): void {
    tx.send(SQL.stage);
    tx.send(SQL.stageIndex);
  }

  /**
   * Comments on posts that the posts' store holds for an import (PostsStore.importPosts): they
   * wait in the session's import_comments until settleImported writes them, after
   * their posts. Answers their new ids, in order.
   */
  async importStagedComments(tx: Tx, comments: ImportedComment[]): Promise<number[]> {
    const ids = (await tx.rows<{ id: string }>(SQL.nextIds, [comments.length])).map((row) => row.id);
    tx.send(SQL.importStaged, [ids, ...columns(comments)]);
    return ids.map(Number);
  }

  /** Writes the comments importStagedComments holds on posts with ids in [from, to); to null: all the rest, and empties the session's table. */
  settleImported(tx: Tx, workspaceId: string, from: number, to: number | null): void {
    tx.send(SQL.settle, [workspaceId, from, to ?? MAX_ID]);
    if (to === null) tx.send(SQL.unstage);
  }

  /** A new comment, read back. */
  async create(
    tx: Tx,
    workspaceId: string,
    comment: { postId: number; authorId: string; body: string; official: boolean; moderation: ModerationState },
  ): Promise<CommentRow> {
    const [{ id }] = await tx.rows<{ id: string }>(SQL.insert, [workspaceId, comment.postId, comment.authorId, comment.body, comment.official, comment.moderation]);
    return (await tx.rows<CommentRow>(SQL.get, [workspaceId, id]))[0];
  }
}

function columns(comments: ImportedComment[]): unknown[] {
  return [
    comments.map((c) => c.postId),
    comments.map((c) => c.authorId),
    comments.map((c) => c.body),
    comments.map((c) => c.official),
    comments.map((c) => c.createdAt),
    comments.map((c) => c.moderation),
  ];
}
