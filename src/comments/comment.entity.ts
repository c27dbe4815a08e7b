/** A row of `comments`, as its store reads it. */
export interface CommentEntity {
  workspaceId: string;

  /** From the global comments_id_seq. */
  id: number;
  postId: number;
  authorId: string;
  body: string;
  official: boolean;
  moderation: import('../posts/post.entity').ModerationState;
  createdAt: Date;
}
