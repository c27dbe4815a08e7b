import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../database/columns';
import type { PostStatus } from './post.entity';

@Entity('status_changes')
export class StatusChangeEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @PrimaryColumn({ type: 'uuid', default: () => 'gen_random_uuid()' })
  id: string;

  @Column({ name: 'post_id', type: 'bigint', transformer: bigintToNumber })
  postId: number;

  @Column({ name: 'from_status', type: 'text' })
  fromStatus: PostStatus;

  @Column({ name: 'to_status', type: 'text' })
  toStatus: PostStatus;

  /** Set when the change is a merge. */
  @Column({ name: 'merged_into_id', type: 'bigint', nullable: true, transformer: bigintToNumber })
  mergedIntoId: number | null;

  @Column({ name: 'changed_by', type: 'uuid' })
  changedBy: string;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;
}
