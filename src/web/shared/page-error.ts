/**
 * A refusal only pages make (a cross-site form, a stale form token, a visitor over a limit):
 * shown as an error page with this status by the one exception filter. Everything the API
 * also refuses stays an AppError, shown on a page the same way.
 */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'PageError';
  }

  static forbidden(message: string): PageError {
    return new PageError(403, 'This request was refused', message);
  }

  static badRequest(title: string, message: string): PageError {
    return new PageError(400, title, message);
  }

  /** Not an error of the request, but of where it was sent: 303 to `location` (sign in first). */
  static seeOther(location: string): PageError {
    return new PageError(303, 'Sign in first', 'Sign in to see this page.', { Location: location });
  }
}
