import { Injectable } from '@nestjs/common';
import { Database, statement } from '../database/sql';
import type { Page } from '../common/page.query';

/**
 * The pending posts and comments, oldest first by creation (a post before a comment made in the
 * same instant, then by id). Each side reads its partial index (`posts_pending_idx`,
 * `comments_pending_idx`: only held rows) for no more rows than the page needs; both name the
 * workspace, one shard's statement on Citus.
 */
const QUEUE = statement(
  'moderation_queue',
  `SELECT kind, post_id, comment_id FROM (
     (SELECT 'post' AS kind, id AS post_id, NULL::bigint AS comment_id, created_at, id AS item_id
        FROM posts WHERE workspace_id = $1 AND moderation = 'pending' ORDER BY created_at, id LIMIT $2::bigint + $3::bigint)
     UNION ALL
     (SELECT 'comment' AS kind, post_id, id AS comment_id, created_at, id AS item_id
        FROM comments WHERE workspace_id = $1 AND moderation = 'pending' ORDER BY created_at, id LIMIT $2::bigint + $3::bigint)
   ) q
   ORDER BY created_at, kind DESC, item_id LIMIT $2::bigint OFFSET $3::bigint`,
);

export interface QueueRow {
  kind: 'post' | 'comment';
  post_id: string;
  comment_id: string | null;
}

/** Reads of the moderation queue across posts and comments (their owners write them). */
@Injectable()
export class ModerationStore {
  constructor(private readonly db: Database) {}

  /** A page of the queue (limit + 1 rows, to tell whether there is more). */
  queue(workspaceId: string, page: Page): Promise<QueueRow[]> {
    return this.db.rows<QueueRow>(QUEUE, [workspaceId, page.limit + 1, page.offset]);
  }
}
