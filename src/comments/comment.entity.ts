import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../database/columns';

@Entity('comments')
export class CommentEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  /** From the global comments_id_seq. */
  @PrimaryColumn({ type: 'bigint', default: () => "nextval('comments_id_seq')", transformer: bigintToNumber })
  id: number;

  @Column({ name: 'post_id', type: 'bigint', transformer: bigintToNumber })
  postId: number;

  @Column({ name: 'author_id', type: 'uuid' })
  authorId: string;

  @Column({ type: 'text' })
  body: string;

  @Column({ type: 'boolean', default: false })
  official: boolean;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;
}
