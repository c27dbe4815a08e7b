export const POST_STATUSES = ['open', 'planned', 'in_progress', 'done', 'closed'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];
export const POST_CATEGORIES = ['feature', 'bug', 'improvement'] as const;
export type PostCategory = (typeof POST_CATEGORIES)[number];

/** A row of `posts`, as its store reads it. */
export interface PostEntity {
  workspaceId: string;

  /** From the global posts_id_seq: ids are unique across workspaces. */
  id: number;
  boardId: string;
  title: string;
  body: string;
  category: PostCategory;
  status: PostStatus;
  votes: number;
  commentsCount: number;
  pinned: boolean;
  mergedIntoId: number | null;
  authorId: string;
  createdAt: Date;
  updatedAt: Date;
}
