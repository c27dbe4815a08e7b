import type { Request } from 'express';

/** Who is calling, set by the bearer guard. */
export interface Caller {
  workspaceId: string;
  workspaceSlug: string;
  plan: string;
  keyId: string;
  /** The member who created the key: the identity of replies and status changes. */
  personId: string;
}

export interface ChorusRequest extends Request {
  id: string;
  caller?: Caller;
  /** On a page of a workspace's public site: the workspace and who is signed in (the site's guard). */
  site?: import('../web/site/site-context').SiteContext;
  /** On a dashboard page: the member signed in and their workspace (the dashboard's guard). */
  admin?: import('../web/admin/admin-context').AdminContext;
  /**
   * A problem with the body found while parsing it (an AppError for the API, a PageError for a
   * page's form), raised only after authentication.
   */
  bodyError?: Error;
  /** Awaited before the answer is sent, with its status and body (see takeBeforeAnswer). */
  beforeAnswer?: import('./prior-answer').BeforeAnswer;
}
