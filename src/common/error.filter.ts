import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Logger, NotFoundException } from '@nestjs/common';
import type { Response } from 'express';
import { DatabaseError } from 'pg';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { RequestAuthenticator } from '../auth/request-authenticator';
import { WorkspaceRateLimiter } from '../rate-limit/workspace-rate-limiter';
import { Links } from '../config/links';
import { renderErrorPage } from '../web/shared/error-page';
import { PageError } from '../web/shared/page-error';
import { isPagePath } from '../web/shared/routes';
import { AppError, ErrorCode } from './app-error';
import { loggedUrl } from './logging';
import { PriorAnswer, takeBeforeAnswer } from './prior-answer';
import type { ChorusRequest } from './request-context';

/** Nest's own exceptions (the router's, the body parser's): by status; other 4xx are invalid_request. */
const HTTP_CODES: Record<number, ErrorCode> = {
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  429: 'rate_limited',
};

/**
 * The one place that writes error bodies: `{ error: { code, message } }` for the API, and an
 * error page for the pages people read (the public site, the dashboard, the email links).
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly limiter: WorkspaceRateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly links: Links,
  ) {}

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const req = host.switchToHttp().getRequest<ChorusRequest>();
    const res = host.switchToHttp().getResponse<Response>();
    if (exception instanceof PriorAnswer) return this.writePriorAnswer(res, exception);
    let error = this.toAppError(exception, req);
    if (exception instanceof NotFoundException && req.path.startsWith('/api') && !req.caller) {
      // No route matched, so no guard ran: authenticate and count the request as they would,
      // so that a caller without a valid key learns nothing about which routes exist.
      error = await this.authenticator
        .authenticate(req)
        .then(() => this.limiter.apply(req, res))
        .then(
          () => error,
          (guardError: unknown) => this.toAppError(guardError, req),
        );
    }
    // A page's refusal is the request's fault, logged at warn by the request's own line; and a
    // logged address never keeps a sign-in token (loggedUrl).
    if (exception instanceof PageError) {
      // nothing more to log
    } else if (error.code === 'query_timeout') {
      this.logger.warn(`${req.method} ${loggedUrl(req.originalUrl)} cancelled by the statement timeout (request ${req.id})`);
    } else if (error.status >= 500) {
      this.logger.error(
        `${req.method} ${loggedUrl(req.originalUrl)} failed (request ${req.id})`,
        exception instanceof Error ? exception.stack : String(exception),
      );
    }
    if (res.headersSent) return;
    if (exception instanceof PageError || isPagePath(req.path)) {
      return this.writePage(req, res, exception instanceof PageError ? exception : error);
    }
    const body = { error: { code: error.code, message: error.message } };
    await takeBeforeAnswer(req)?.(error.status, body);
    if (res.headersSent) return;
    res.status(error.status);
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    res.json(body);
  }

  /** An answer given before (an Idempotency-Key's replay): its status, headers and body as stored. */
  private writePriorAnswer(res: Response, answer: PriorAnswer): void {
    if (res.headersSent) return;
    res.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    if (answer.body === undefined || answer.body === null) res.end();
    else res.json(answer.body);
  }

  /** A page's refusal or failure: an error page, with the status and headers it calls for. */
  private writePage(req: ChorusRequest, res: Response, error: AppError | PageError): void {
    const status = error.status;
    res.status(status);
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    res.setHeader('Cache-Control', 'no-store');
    res.type('html');
    const workspace = req.site?.workspace ?? null;
    res.send(renderErrorPage({ status, title: error instanceof PageError ? error.title : undefined, message: error.message, path: req.path, workspace }, this.links));
  }

  private toAppError(exception: unknown, req: ChorusRequest): AppError {
    return toAppError(exception, req, this.config.databaseStatementTimeoutMs);
  }

}

/**
 * What an exception answers: itself if an AppError, Nest's 4xx by status, a statement timeout as
 * `query_timeout`, anything else a 500 that leaks nothing.
 */
export function toAppError(exception: unknown, req: ChorusRequest, statementTimeoutMs: number): AppError {
  if (exception instanceof AppError) return exception;
  if (exception instanceof HttpException && exception.getStatus() < 500) {
    const code = HTTP_CODES[exception.getStatus()] ?? 'invalid_request';
    // A path segment that is not valid percent-encoding names nothing.
    if (code === 'not_found' || exception.message.startsWith('Failed to decode param')) {
      return new AppError('not_found', `No route for ${req.method} ${req.path}.`);
    }
    return new AppError(code, exception.message);
  }
  // 57014: cancelled by statement_timeout. The connection itself is fine and back in the pool.
  if (exception instanceof DatabaseError && exception.code === '57014') {
    return new AppError(
      'query_timeout',
      `The request took longer than the database allows (${statementTimeoutMs} ms) and was cancelled. ` +
        'For a search, use longer or more distinctive terms, or narrow it with board or status; otherwise try again.',
    );
  }
  return new AppError(
    'server_error',
    `Something went wrong on our side. Try again later; if it persists, contact support with request id ${req.id}.`,
  );
}
