
/** member: belongs to the team and can hold keys; user: a known end user; guest: made by an API post. */
export type PersonKind = 'member' | 'user' | 'guest';

/** A row of `people`, as its store reads it. */
export interface PersonEntity {
  workspaceId: string;
  id: string;
  kind: PersonKind;
  name: string;
  email: string | null;
  createdAt: Date;
  /** When the workspace blocked them (moderation); null when not blocked. */
  blockedAt: Date | null;
}
