import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Logger, NotFoundException, Optional } from '@nestjs/common';
import type { Response } from 'express';
import { DatabaseError } from 'pg';
import { APP_CONFIG, AppConfig } from '../config/app-config';
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
 * Answers errors of the pages people read with an error page (web/shared provides it): the
 * filter stays below the pages, which register how they are answered.
 */
export abstract class ErrorPages {
  /** Whether this request, failed with `exception`, is answered with a page. */
  abstract answers(req: ChorusRequest, exception: unknown): boolean;
  /** Whether `exception` is a page's own refusal, logged by the request's line alone. */
  abstract isRefusal(exception: unknown): boolean;
  abstract write(req: ChorusRequest, res: Response, exception: unknown, error: AppError): void;
}

/**
 * An /api request that no route matched, so that no guard ran: authenticated and counted as a
 * route would (auth provides it), so that a caller without a valid key learns nothing about
 * which routes exist.
 */
export abstract class UnroutedApi {
  abstract check(req: ChorusRequest, res: Response): Promise<void>;
}

/**
 * The one place that writes error bodies: `{ error: { code, message } }` for the API, and an
 * error page for the pages people read (the public site, the dashboard, the email links).
 */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Optional() private readonly pages?: ErrorPages,
    @Optional() private readonly unrouted?: UnroutedApi,
  ) {}

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const req = host.switchToHttp().getRequest<ChorusRequest>();
    const res = host.switchToHttp().getResponse<Response>();
    if (exception instanceof PriorAnswer) return this.writePriorAnswer(res, exception);
    let error = this.toAppError(exception, req);
    if (exception instanceof NotFoundException && req.path.startsWith('/api') && !req.caller && this.unrouted) {
      error = await this.unrouted.check(req, res).then(
          () => error,
          (guardError: unknown) => this.toAppError(guardError, req),
        );
    }
    // A page's refusal is the request's fault, logged at warn by the request's own line; and a
    // logged address never keeps a sign-in token (loggedUrl).
    if (this.pages?.isRefusal(exception)) {
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
    if (this.pages?.answers(req, exception)) return this.pages.write(req, res, exception, error);
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
