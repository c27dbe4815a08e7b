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
  /**
   * A problem with the body found while parsing it (an AppError for the API, a PageError for a
   * page's form), raised only after authentication.
   */
  bodyError?: Error;
  /** Awaited before the answer is sent, with its status and body (see takeBeforeAnswer). */
  beforeAnswer?: BeforeAnswer;
}

/** What must happen before a request's answer goes out, given its status and body (storing it for an Idempotency-Key). */
export type BeforeAnswer = (status: number, body: unknown) => Promise<void>;
