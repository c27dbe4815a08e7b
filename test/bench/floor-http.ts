/**
 * What both floors of bench:floor share: the HTTP server around their handlers (the body read
 * whole, then the key, then one Redis sliding-window call per request, as Chorus makes), the
 * JSON answer, and the shutdown on SIGTERM. The server prints its port on stdout.
 */
import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type Redis from 'ioredis';
import { SLIDING_WINDOW_LUA } from '../../src/rate-limit/sliding-window';

export interface FloorCaller {
  workspace_id: string;
  slug: string;
  plan: string;
  created_by: string;
}

export interface FloorHandlers {
  authenticate(req: IncomingMessage): Promise<FloorCaller | null>;
  list(caller: FloorCaller, res: ServerResponse): Promise<void>;
  create(caller: FloorCaller, body: { board: string; title: string; body?: string }, res: ServerResponse): Promise<void>;
  /** Closes the database pool. */
  end(): Promise<void>;
}

export const send = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
};

/** The key of an `Authorization: Bearer` header, if any. */
export const bearerKey = (req: IncomingMessage) => /^bearer +(\S+)/i.exec(req.headers.authorization ?? '')?.[1];

export function serveFloor(redis: Redis, handlers: FloorHandlers): void {
  const windowMs = Number(process.env.FLOOR_WINDOW_MS ?? 60_000);
  redis.defineCommand('window', { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      (async () => {
        const caller = await handlers.authenticate(req);
        if (!caller) return send(res, 401, { error: { code: 'unauthorized', message: 'The API key is wrong or revoked.' } });
        const limit = caller.plan === 'business' ? 300 : 60;
        const window = (redis as unknown as { window(...args: unknown[]): Promise<number[]> }).window;
        const [allowed] = await window.call(redis, `chorus:rl:{ws:${caller.workspace_id}}`, limit, windowMs, '1', randomBytes(6).toString('hex'));
        if (!allowed) return send(res, 429, { error: { code: 'rate_limited', message: 'Too many requests.' } });
        if (req.method === 'GET' && req.url?.startsWith('/api/v1/posts')) return handlers.list(caller, res);
        if (req.method === 'POST' && req.url === '/api/v1/posts') {
          return handlers.create(caller, JSON.parse(Buffer.concat(chunks).toString('utf8')), res);
        }
        send(res, 404, { error: { code: 'not_found', message: 'No route.' } });
      })().catch((error: Error) => send(res, 500, { error: { code: 'server_error', message: error.message } }));
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as { port: number }).port })));
  process.on('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void handlers.end();
    redis.disconnect();
  });
}
