/** Every error code the API answers with, and its HTTP status. */
export const ERROR_STATUS = {
  unauthorized: 401,
  plan_required: 403,
  not_found: 404,
  conflict: 409,
  invalid_json: 400,
  invalid_request: 400,
  payload_too_large: 413,
  rate_limited: 429,
  server_error: 500,
  query_timeout: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Thrown by services and guards; the global filter turns it into the envelope. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** `No such <what> in this workspace.`; a workspace itself is looked for in no workspace (`within` null). */
  static notFound(what = 'resource', within: string | null = 'this workspace'): AppError {
    return new AppError('not_found', `No such ${what}${within === null ? '' : ` in ${within}`}.`);
  }

  static invalid(field: string, problem: string): AppError {
    return new AppError('invalid_request', `${field}: ${problem}`);
  }
}
