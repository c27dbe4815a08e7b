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
  /** A problem with the body or query found while parsing it, raised only after authentication. */
  bodyError?: import('./app-error').AppError;
}
