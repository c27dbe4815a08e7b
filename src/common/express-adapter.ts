import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { NestApplicationOptions, StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Application, Response } from 'express';
import { takeBeforeAnswer } from './prior-answer';
import type { ChorusRequest } from './request-context';

/**
 * A subclass of Node's request or response class whose instances are born with the prototype
 * Express gives them, which becomes the app's `request` or `response`. Express sets that
 * prototype on every request and response as it arrives (`Object.setPrototypeOf`); on an
 * object that already has fields, V8 then moves it to a map of its own, outside any transition
 * tree, so every field added later (`req.body`, `req.params`, `res.locals`, `statusCode`…) made
 * new maps on every request, and property accesses everywhere, in pg's row parser too, missed
 * their inline caches. Born with it, Express's `setPrototypeOf` finds the prototype in place
 * and does nothing. It has to be a class: V8 keeps the initial map of a derived class, but
 * makes a new one per object for a plain function given as `new.target`.
 */
function bornWithPrototypeOf<C extends new (...args: any[]) => object>(base: C, app: Application, expressPrototype: object): C {
  const Born = class extends base {};
  Object.setPrototypeOf(Born.prototype, Object.getPrototypeOf(expressPrototype));
  // What Express defines on its own prototype object (express.js, createApplication).
  Object.defineProperty(Born.prototype, 'app', { configurable: true, enumerable: true, writable: true, value: app });
  return Born;
}

/**
 * Nest's Express adapter, with three changes on the request path:
 * - its HTTP server makes requests and responses with Express's prototypes from the start (see
 *   `bornWithPrototypeOf`);
 * - it answers a handler's object as Express would (the same status, `Content-Type` and
 *   `Content-Length`), sent as text beside the headers (see `send`), and without what Express's
 *   `res.json` does that this API (no ETags) never needs: the request's freshness headers
 *   checked. Node still sends headers and body in one write.
 * - a Buffer (a page, encoded once to be hashed for its ETag) is sent as those bytes.
 *   Anything else (no body, streams, errors, a type set by the handler) goes through Express.
 * - the request's `beforeAnswer` (an Idempotency-Key's, see takeBeforeAnswer) is awaited first.
 */
export class ChorusExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.return503OnClosing || options?.forceCloseConnections) return super.initHttpServer(options);
    // Express keeps the prototypes it gives requests and responses on the app (untyped).
    const app = this.getInstance<Application & { request: object; response: object }>();
    const Request = bornWithPrototypeOf(IncomingMessage, app, app.request);
    const Response = bornWithPrototypeOf<typeof ServerResponse>(ServerResponse, app, app.response);
    app.request = Request.prototype;
    app.response = Response.prototype;
    this.httpServer = createServer({ IncomingMessage: Request, ServerResponse: Response }, app);
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    const before = takeBeforeAnswer(response.req as ChorusRequest);
    if (before) return before(statusCode ?? response.statusCode, body).then(() => this.send(response, body, statusCode));
    return this.send(response, body, statusCode);
  }

  private send(response: Response, body: unknown, statusCode?: number): unknown {
    if (Buffer.isBuffer(body)) {
      // A page's bytes, as rendered and hashed (Express would send a Buffer's JSON).
      response.setHeader('Content-Length', body.length);
      response.writeHead(statusCode ?? response.statusCode);
      return response.end(body);
    }
    if (body === null || typeof body !== 'object' || body instanceof StreamableFile || body instanceof Error || response.hasHeader('Content-Type')) {
      return super.reply(response, body, statusCode);
    }
    // Sent as text, which Node joins to the headers and writes from memory of its own. A Buffer
    // made for each answer (Buffer.from) costs more than it saves: about 40 µs of CPU a list
    // answer in a loop of node:http alone, for the 14 KB fewer that the young generation collects.
    const text = JSON.stringify(body);
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', Buffer.byteLength(text));
    // Headers written before the body: `end` would otherwise look at them again.
    response.writeHead(statusCode ?? response.statusCode);
    return response.end(text);
  }
}
