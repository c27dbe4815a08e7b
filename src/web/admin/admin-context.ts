import type { Session } from '../shared/sessions.service';

/** Who is signed in to the dashboard, and the workspace they run. */
export interface AdminContext {
  member: Session;
  workspace: { id: string; slug: string; name: string; plan: string };
}

/** The member as the services that act for them see them (an API key's creator, elsewhere). */
export const memberActor = (admin: AdminContext) => ({
  workspaceId: admin.workspace.id,
  workspaceSlug: admin.workspace.slug,
  personId: admin.member.personId,
});

declare module '../../common/request-context' {
  interface ChorusRequest {
    /** On a dashboard page: the member signed in and their workspace (the dashboard's guard). */
    admin?: AdminContext;
  }
}
