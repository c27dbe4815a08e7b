import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @PrimaryColumn({ type: 'uuid', default: () => 'gen_random_uuid()' })
  id: string;

  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  @Column({ name: 'key_hash', type: 'text' })
  keyHash: string;

  /** The first characters of the key, so that an operator can tell keys apart. */
  @Column({ name: 'key_prefix', type: 'text' })
  keyPrefix: string;

  @Column({ name: 'created_by', type: 'uuid' })
  createdBy: string;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', precision: 3, nullable: true })
  revokedAt: Date | null;
}
