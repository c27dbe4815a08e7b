import type { Response } from 'express';
import { AppError } from '../common/app-error';

/** Seconds, rounded up, at least 1. */
export const wholeSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * `X-RateLimit-Limit`, `-Remaining`, and `-Reset`: the Unix time, in seconds, at which the
 * oldest request still counted leaves the window (when Remaining next goes up).
 */
export function setRateLimitHeaders(res: Response, limit: number, count: number, resetInMs: number): void {
  res.setHeader('X-RateLimit-Limit', String(limit));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - count)));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + resetInMs) / 1000)));
}

/** 429 with `Retry-After` in whole seconds (at least 1) until a request would be accepted. */
export function rateLimited(retryAfterSeconds: number, message: string): AppError {
  return new AppError('rate_limited', `${message} Retry in ${retryAfterSeconds} s.`, {
    'Retry-After': String(retryAfterSeconds),
  });
}
