
/** A row of `api_keys`, as its store reads it. */
export interface ApiKeyEntity {
  workspaceId: string;
  id: string;

  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  keyHash: string;

  /** The first characters of the key, so that an operator can tell keys apart. */
  keyPrefix: string;
  createdBy: string;
  createdAt: Date;
  revokedAt: Date | null;
}
