import type { NextFunction, RequestHandler, Response } from 'express';
import express from 'express';
import { AppError } from './app-error';
import type { ChorusRequest } from './request-context';

export const MAX_BODY_BYTES = 256 * 1024;

const JSON_MEDIA_TYPE = /^application\/([\w.+-]+\+)?json$/i;
const hasBody = (req: ChorusRequest) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

const MAX_DEPTH = 32;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The first problem in a parsed value that PostgreSQL or our validation cannot take: NUL
 * characters and lone surrogates in strings, nesting deeper than 32, prototype keys.
 */
export function valueProblem(value: unknown, path: string, depth = 0): AppError | null {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return AppError.invalid(path, 'must not contain NUL characters');
    if (!value.isWellFormed()) return AppError.invalid(path, 'must be valid Unicode text');
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_DEPTH) return AppError.invalid(path, `is nested more than ${MAX_DEPTH} levels deep`);
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  for (const [key, child] of entries) {
    const childPath = path === 'body' ? key : `${path}.${key}`;
    if (FORBIDDEN_KEYS.has(key)) return AppError.invalid(childPath, 'is not allowed');
    const problem = valueProblem(child, childPath, depth + 1);
    if (problem) return problem;
  }
  return null;
}

const parseJson = express.json({ limit: MAX_BODY_BYTES, strict: false, type: () => true });

/**
 * Parses a JSON body without answering: a bad body is kept on the request and raised only
 * after authentication (401 and 403 come before any problem with the request itself). Paths
 * that `readsOwnBody` says read their own (the pages' forms) are left alone.
 */
export const jsonBody =
  (readsOwnBody: (path: string) => boolean) =>
  (req: ChorusRequest, res: Response, next: NextFunction): void => {
    if (readsOwnBody(req.path)) return next();
    readJson(req, res, next);
  };

function readJson(req: ChorusRequest, res: Response, next: NextFunction): void {
  if (!hasBody(req)) {
    req.body = {};
    return next();
  }
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim();
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    req.body = {};
    req.bodyError = AppError.invalid('content-type', 'must be application/json');
    req.resume(); // drain it, so the connection can be reused
    return next();
  }
  parseJson(req, res, (error?: { type?: string }) => {
    if (error) {
      req.body = {};
      req.bodyError =
        error.type === 'entity.too.large'
          ? new AppError('payload_too_large', `body: must be at most ${MAX_BODY_BYTES / 1024} KiB`)
          : error.type === 'entity.parse.failed'
            ? new AppError('invalid_json', 'body: is not valid JSON')
            : AppError.invalid('body', 'could not be read as UTF-8 JSON');
    } else if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
      req.body = {};
      req.bodyError = AppError.invalid('body', 'must be a JSON object');
    } else {
      const problem = valueProblem(req.body, 'body');
      if (problem) {
        req.body = {};
        req.bodyError = problem;
      }
    }
    next();
  });
}

/**
 * Middleware run in turn as one layer of Express's router, as they would run as layers of their
 * own: each is called when the one before calls `next()`; a `next(error)`, or a handler that
 * throws, skips the rest and hands the error on. Every request passed each layer's path match
 * and bookkeeping before its route; these always run, whatever the path.
 */
export function inTurn(...handlers: ((req: ChorusRequest, res: Response, next: NextFunction) => void)[]): RequestHandler {
  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) return next(error);
      if (index === handlers.length) return next();
      const handler = handlers[index++];
      try {
        handler(req as ChorusRequest, res, step);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}
