import { StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';

/**
 * Nest's Express adapter, answering a handler's object as Express would (the same status,
 * `Content-Type` and `Content-Length`), but with the JSON text handed to Node as it is: Express's
 * `res.json` copies any body over 1,000 bytes into a Buffer first and checks request freshness
 * headers, work this API (no ETags) never needs. Node then sends headers and body in one write.
 * Anything else (no body, streams, errors, a type set by the handler) goes through Express.
 */
export class ChorusExpressAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (body === null || typeof body !== 'object' || body instanceof StreamableFile || body instanceof Error || response.hasHeader('Content-Type')) {
      return super.reply(response, body, statusCode);
    }
    if (statusCode !== undefined) response.statusCode = statusCode;
    const json = JSON.stringify(body);
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', Buffer.byteLength(json));
    return response.end(json);
  }
}
