export const POST_STATUSES = ['open', 'planned', 'in_progress', 'done', 'closed'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];
export const POST_CATEGORIES = ['feature', 'bug', 'improvement'] as const;
export type PostCategory = (typeof POST_CATEGORIES)[number];

/** Whether a post or comment shows: `pending` and `rejected` ones exist only for their author and the team. */
export const MODERATION_STATES = ['approved', 'pending', 'rejected'] as const;
export type ModerationState = (typeof MODERATION_STATES)[number];

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
  moderation: ModerationState;
  createdAt: Date;
  updatedAt: Date;
}
