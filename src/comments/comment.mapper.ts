export interface CommentRow {
  id: string;
  post_id: string;
  body: string;
  official: boolean;
  author_name: string;
  created_at: Date;
}

export const COMMENT_SELECT = `
  SELECT c.id, c.post_id, c.body, c.official, a.name AS author_name, c.created_at
    FROM comments c
    JOIN people a ON a.workspace_id = c.workspace_id AND a.id = c.author_id`;

export interface CommentResponse {
  id: number;
  post_id: number;
  body: string;
  official: boolean;
  author: { name: string };
  created_at: string;
}

export function toCommentResponse(row: CommentRow): CommentResponse {
  return {
    id: Number(row.id),
    post_id: Number(row.post_id),
    body: row.body,
    official: row.official,
    author: { name: row.author_name },
    created_at: row.created_at.toISOString(),
  };
}
