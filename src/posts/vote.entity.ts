import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintToNumber } from '../database/columns';

/** One vote per person and post: the primary key says so. */
@Entity('votes')
export class VoteEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @PrimaryColumn({ name: 'post_id', type: 'bigint', transformer: bigintToNumber })
  postId: number;

  @PrimaryColumn({ name: 'person_id', type: 'uuid' })
  personId: string;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;
}
