import { randomBytes } from 'node:crypto';
import type { NextFunction, Response } from 'express';
import express from 'express';
import { AppError } from './app-error';
import type { ChorusRequest } from './request-context';

export const MAX_BODY_BYTES = 256 * 1024;

/** Gives every request an id, answered in the `Request-Id` header and written in logs. */
export function requestId(req: ChorusRequest, res: Response, next: NextFunction): void {
  req.id = `req_${randomBytes(12).toString('base64url')}`;
  res.setHeader('Request-Id', req.id);
  next();
}

const JSON_MEDIA_TYPE = /^application\/([\w.+-]+\+)?json$/i;
const hasBody = (req: ChorusRequest) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

const parseJson = express.json({ limit: MAX_BODY_BYTES, strict: false, type: () => true });

/**
 * Parses a JSON body without answering: a bad body is kept on the request and raised only
 * after authentication (401 and 403 come before any problem with the request itself).
 */
export function jsonBody(req: ChorusRequest, res: Response, next: NextFunction): void {
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
    }
    next();
  });
}
