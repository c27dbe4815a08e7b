import type { Plan } from './plans';

/** What a visitor's post or comment needs before it shows: nothing, a first approved one, or every time. */
export const MODERATION_MODES = ['off', 'first', 'all'] as const;
export type ModerationMode = (typeof MODERATION_MODES)[number];

/** A row of `workspaces`, as its store reads it. */
export interface WorkspaceEntity {
  id: string;
  slug: string;
  name: string;
  plan: Plan;
  moderation: ModerationMode;
  createdAt: Date;
}
