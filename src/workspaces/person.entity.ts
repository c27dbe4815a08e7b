import { Column, Entity, PrimaryColumn } from 'typeorm';

/** member: belongs to the team and can hold keys; user: a known end user; guest: made by an API post. */
export type PersonKind = 'member' | 'user' | 'guest';

@Entity('people')
export class PersonEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @PrimaryColumn({ type: 'uuid', default: () => 'gen_random_uuid()' })
  id: string;

  @Column({ type: 'text' })
  kind: PersonKind;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', nullable: true })
  email: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;
}
