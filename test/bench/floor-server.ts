/**
 * The floor of bench:floor: GET /api/v1/posts?limit=25 and POST /api/v1/posts with no framework
 * (node:http, pg, ioredis), doing the database and Redis work that Chorus did per request when
 * issue 10 was opened: the key lookup, one sliding-window script, then the list query, or the
 * create transaction statement by statement (8 round trips; the event insert as it is now, with
 * the endpoints subscribed at that moment). It is fixed on purpose, so that whatever Chorus
 * saves below that work shows in the ratio. Rows become posts through Chorus's own mapper. No
 * validation, no logging, no metrics: a lower bound, not a product. Started by floor.bench.ts with FLOOR_* variables;
 * prints its port on stdout.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import Redis from 'ioredis';
import { Pool } from 'pg';
import type { AppConfig } from '../../src/config/app-config';
import { Links } from '../../src/config/links';
import { postSelect, toPostResponse } from '../../src/posts/post.mapper';
import { SLIDING_WINDOW_LUA } from '../../src/rate-limit/sliding-window';

const pool = new Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: 10 });
const redis = new Redis(process.env.FLOOR_REDIS_URL ?? 'redis://127.0.0.1:6379');
const WINDOW_MS = Number(process.env.FLOOR_WINDOW_MS ?? 60_000);
const BASE = process.env.FLOOR_BASE_URL ?? 'https://chorus.bench';

redis.defineCommand('window', { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });

const ORDER = 'p.created_at DESC, p.id DESC';
const LIST = `${postSelect(`(SELECT * FROM posts p WHERE p.workspace_id = $1 AND p.merged_into_id IS NULL
                   ORDER BY ${ORDER} LIMIT $2 OFFSET $3)`)} ORDER BY ${ORDER}`;
// Chorus's own mapping from rows to posts: the same work per post as Chorus does.
const links = new Links({ baseUrl: BASE, publicBaseUrl: BASE } as AppConfig);

interface Caller {
  workspace_id: string;
  slug: string;
  plan: string;
  created_by: string;
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
};

async function authenticate(req: IncomingMessage): Promise<Caller | null> {
  const key = /^bearer +(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
  if (!key) return null;
  const { rows } = await pool.query(
    `SELECT k.id AS key_id, k.created_by, w.id AS workspace_id, w.slug, w.plan
       FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    [createHash('sha256').update(key).digest('hex')],
  );
  return rows[0] ?? null;
}

async function list(caller: Caller, res: ServerResponse) {
  const { rows } = await pool.query(LIST, [caller.workspace_id, 26, 0]);
  const data = rows.slice(0, 25).map((row) => toPostResponse(row, caller.slug, links));
  send(res, 200, { data, has_more: rows.length > 25, next_offset: rows.length > 25 ? 25 : null });
}

async function create(caller: Caller, body: { board: string; title: string; body?: string }, res: ServerResponse) {
  const client = await pool.connect();
  try {
    await client.query('START TRANSACTION');
    const board = await client.query(`SELECT id FROM boards WHERE workspace_id = $1 AND slug = $2 LIMIT 1`, [
      caller.workspace_id,
      body.board,
    ]);
    if (!board.rows[0]) throw new Error('no board');
    const inserted = await client.query(
      `INSERT INTO posts (workspace_id, board_id, title, body, category, author_id, votes)
       VALUES ($1, $2, $3, $4, 'feature', $5, 1) RETURNING id, status, created_at, updated_at`,
      [caller.workspace_id, board.rows[0].id, body.title, body.body ?? '', caller.created_by],
    );
    const id = inserted.rows[0].id;
    await client.query(`INSERT INTO votes (workspace_id, post_id, person_id) VALUES ($1, $2, $3)`, [
      caller.workspace_id,
      id,
      caller.created_by,
    ]);
    const { rows } = await client.query(`${postSelect()} WHERE p.workspace_id = $1 AND p.id = $2`, [
      caller.workspace_id,
      id,
    ]);
    const post = toPostResponse(rows[0], caller.slug, links);
    await client.query(
      `INSERT INTO outbox_events (workspace_id, type, data, actor_id, endpoint_ids)
       SELECT $1, $2, $3, $4, ARRAY(
         SELECT e.id FROM webhook_endpoints e JOIN workspaces w ON w.id = e.workspace_id
          WHERE e.workspace_id = $1 AND e.enabled AND $2 = ANY (e.events) AND w.plan <> 'free')`,
      [
      caller.workspace_id,
      'post.created',
      JSON.stringify({ post }),
      caller.created_by,
    ]);
    await client.query(`SELECT pg_notify($1, '')`, ['chorus_outbox']);
    await client.query('COMMIT');
    send(res, 201, { data: post });
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    (async () => {
      const caller = await authenticate(req);
      if (!caller) return send(res, 401, { error: { code: 'unauthorized', message: 'The API key is wrong or revoked.' } });
      const limit = caller.plan === 'business' ? 300 : 60;
      const [allowed] = (await (redis as any).window(`chorus:rl:ws:${caller.workspace_id}`, limit, WINDOW_MS, '1', randomBytes(6).toString('hex'))) as number[];
      if (!allowed) return send(res, 429, { error: { code: 'rate_limited', message: 'Too many requests.' } });
      if (req.method === 'GET' && req.url?.startsWith('/api/v1/posts')) return list(caller, res);
      if (req.method === 'POST' && req.url === '/api/v1/posts') {
        return create(caller, JSON.parse(Buffer.concat(chunks).toString('utf8')), res);
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
  void pool.end();
  redis.disconnect();
});
