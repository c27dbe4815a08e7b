import type { Plan } from './plans';

/** A row of `workspaces`, as its store reads it. */
export interface WorkspaceEntity {
  id: string;
  slug: string;
  name: string;
  plan: Plan;
  createdAt: Date;
}
