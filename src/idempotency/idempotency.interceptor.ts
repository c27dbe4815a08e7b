import { createHash } from 'node:crypto';
import { CallHandler, ExecutionContext, Inject, Injectable, Logger, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { catchError, from, mergeMap, Observable, of } from 'rxjs';
import { AppError } from '../common/app-error';
import { toAppError } from '../common/error.filter';
import type { ChorusRequest } from '../common/request-context';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Claim, IdempotencyStore } from './idempotency.store';

export const MAX_KEY_LENGTH = 255;

/** JSON with object keys sorted: the same fields in another order are the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The request a key stands for: method, path and body (the query string of a POST names nothing here). */
const requestHash = (req: ChorusRequest) =>
  createHash('sha256').update(`${req.method} ${req.path}\n${canonicalJson(req.body)}`).digest('hex');

/**
 * `Idempotency-Key` on every POST, with Stripe's semantics. It runs after authentication, the
 * rate limit and the body checks (a key never replays a 401, 429 or a body that did not parse),
 * and stores the answer before it is sent, so that a client that gave up waiting finds it on
 * its retry. Answers of 5xx, and 400s (a request refused as invalid changed nothing and may be
 * corrected), are not stored: the key is released and a retry runs again.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly store: IdempotencyStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<ChorusRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const key = req.headers['idempotency-key'];
    if (req.method !== 'POST' || typeof key !== 'string' || !req.caller) return next.handle();
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw AppError.invalid('idempotency-key', `must be 1 to ${MAX_KEY_LENGTH} characters`);
    }
    return from(this.store.claim(req.caller.workspaceId, key, requestHash(req))).pipe(
      mergeMap((claim) => {
        switch (claim.kind) {
          case 'different_request':
            throw AppError.invalid('idempotency-key', 'was used with a different request');
          case 'in_flight':
            throw new AppError('conflict', 'A request with this Idempotency-Key is still in progress; retry it later.');
          case 'replay':
            res.status(claim.status);
            res.setHeader('Idempotent-Replayed', 'true');
            return of(claim.body);
          case 'owned':
            return this.run(claim, next, req, res);
        }
      }),
    );
  }

  private run(claim: Extract<Claim, { kind: 'owned' }>, next: CallHandler, req: ChorusRequest, res: Response) {
    return next.handle().pipe(
      mergeMap(async (body) => {
        await this.settle(claim, res.statusCode, body);
        return body;
      }),
      catchError(async (error: unknown) => {
        const answer = toAppError(error, req, this.config.databaseStatementTimeoutMs);
        await this.settle(claim, answer.status, { error: { code: answer.code, message: answer.message } });
        throw error;
      }),
    );
  }

  /** Stores the answer, or releases the key; never turns an answer into an error of its own. */
  private async settle(claim: Extract<Claim, { kind: 'owned' }>, status: number, body: unknown): Promise<void> {
    try {
      if (status >= 500 || status === 400) await this.store.release(claim);
      else await this.store.complete(claim, status, body);
    } catch (error) {
      // The answer still goes out; the key stays in flight until its lease ends.
      this.logger.error(`Idempotency-Key ${JSON.stringify(claim.key)}: the answer could not be stored: ${(error as Error).message}`);
    }
  }
}
