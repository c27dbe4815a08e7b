import { Injectable } from '@nestjs/common';
import { Database, statement, Tx } from '../database/sql';
import { COMMENT_SELECT, CommentRow } from './comment.mapper';

const SQL = {
  list: statement('comment_list', `${COMMENT_SELECT} WHERE c.workspace_id = $1 AND c.post_id = $2 ORDER BY c.created_at, c.id`),
  insert: statement(
    'comment_insert',
    `INSERT INTO comments (workspace_id, post_id, author_id, body, official) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
  ),
  get: statement('comment_get', `${COMMENT_SELECT} WHERE c.workspace_id = $1 AND c.id = $2`),
};

/** The comments table. */
@Injectable()
export class CommentsStore {
  constructor(private readonly db: Database) {}

  /** A post's comments, oldest first. */
  list(workspaceId: string, postId: number): Promise<CommentRow[]> {
    return this.db.rows<CommentRow>(SQL.list, [workspaceId, postId]);
  }

  /** A new comment, read back. */
  async create(tx: Tx, workspaceId: string, comment: { postId: number; authorId: string; body: string; official: boolean }): Promise<CommentRow> {
    const [{ id }] = await tx.rows<{ id: string }>(SQL.insert, [workspaceId, comment.postId, comment.authorId, comment.body, comment.official]);
    return (await tx.rows<CommentRow>(SQL.get, [workspaceId, id]))[0];
  }
}
