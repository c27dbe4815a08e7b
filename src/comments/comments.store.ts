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
  get: statement('comment_get', `${COMMENT_SELECT} WHERE c.workspace_id = $1 AND c.id = $2`),
};

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
    tx.send(SQL.importComments, [
      workspaceId,
      ids,
      comments.map((c) => c.postId),
      comments.map((c) => c.authorId),
      comments.map((c) => c.body),
      comments.map((c) => c.official),
      comments.map((c) => c.createdAt),
      comments.map((c) => c.moderation),
    ]);
    return ids.map(Number);
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
