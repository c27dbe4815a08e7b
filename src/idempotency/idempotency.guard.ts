import { createHash } from 'node:crypto';
import { CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { PriorAnswer } from '../common/prior-answer';
import type { ChorusRequest } from '../common/request-context';
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
 * rate limit and the body checks (the global guards: a key never replays a 401, 429 or a body
 * that did not parse), and before the route's pipes and handler.
 * - A stored answer is replayed (a PriorAnswer, sent by ErrorFilter) and the route does not run.
 * - A key it takes is settled before the answer is sent (the request's `beforeAnswer`, awaited by
 *   the adapter's `reply` or by ErrorFilter), so that a client that gave up waiting finds the
 *   answer on its retry. Answers of 5xx, and 400s (a request refused as invalid changed nothing
 *   and may be corrected), are not stored: the key is released and a retry runs again.
 *
 * A guard rather than an interceptor: a route with an interceptor runs every request through
 * Nest's Observable pipeline, key or not, which cost a create a fifth of its CPU under load.
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  private readonly logger = new Logger('Idempotency');

  constructor(private readonly store: IdempotencyStore) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ChorusRequest>();
    const key = req.headers['idempotency-key'];
    if (req.method !== 'POST' || typeof key !== 'string' || !req.caller) return true;
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw AppError.invalid('idempotency-key', `must be 1 to ${MAX_KEY_LENGTH} characters`);
    }
    const claim = await this.store.claim(req.caller.workspaceId, key, requestHash(req));
    switch (claim.kind) {
      case 'different_request':
        throw AppError.invalid('idempotency-key', 'was used with a different request');
      case 'in_flight':
        throw new AppError('conflict', 'A request with this Idempotency-Key is still in progress; retry it later.');
      case 'replay':
        throw new PriorAnswer(claim.status, claim.body, { 'Idempotent-Replayed': 'true' });
      case 'owned':
        req.beforeAnswer = (status, body) => this.settle(claim, status, body);
        return true;
    }
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
