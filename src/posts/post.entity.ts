import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../database/columns';

export const POST_STATUSES = ['open', 'planned', 'in_progress', 'done', 'closed'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];
export const POST_CATEGORIES = ['feature', 'bug', 'improvement'] as const;
export type PostCategory = (typeof POST_CATEGORIES)[number];

@Entity('posts')
export class PostEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  /** From the global posts_id_seq: ids are unique across workspaces. */
  @PrimaryColumn({ type: 'bigint', default: () => "nextval('posts_id_seq')", transformer: bigintToNumber })
  id: number;

  @Column({ name: 'board_id', type: 'uuid' })
  boardId: string;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text', default: '' })
  body: string;

  @Column({ type: 'text', default: 'feature' })
  category: PostCategory;

  @Column({ type: 'text', default: 'open' })
  status: PostStatus;

  @Column({ type: 'integer', default: 0 })
  votes: number;

  @Column({ name: 'comments_count', type: 'integer', default: 0 })
  commentsCount: number;

  @Column({ type: 'boolean', default: false })
  pinned: boolean;

  @Column({ name: 'merged_into_id', type: 'bigint', nullable: true, transformer: bigintToNumber })
  mergedIntoId: number | null;

  @Column({ name: 'author_id', type: 'uuid' })
  authorId: string;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  updatedAt: Date;
}
