import type { BeforeAnswer, ChorusRequest } from './request-context';

/**
 * An answer given in full before the route runs: an `Idempotency-Key`'s stored answer, replayed.
 * A guard throws it; ErrorFilter sends its status, headers and body as they are.
 */
export class PriorAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string>,
  ) {}
}

/**
 * The request's `beforeAnswer`, taken off it so that it runs once: the adapter's `reply` awaits it
 * for an answer the route gave, ErrorFilter for an error.
 */
export function takeBeforeAnswer(req: ChorusRequest): BeforeAnswer | undefined {
  const before = req.beforeAnswer;
  if (before) req.beforeAnswer = undefined;
  return before;
}
