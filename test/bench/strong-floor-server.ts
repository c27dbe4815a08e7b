/**
 * The strong floor of bench:floor: GET /api/v1/posts?limit=25 and POST /api/v1/posts with no
 * framework (node:http, pg, ioredis), doing the same job as Chorus done well, which is the honest
 * limit: named prepared statements (pg's `{ name, text, values }`: parsed and planned once per
 * connection), a key's lookup kept for 5 s, and a create in four round trips: BEGIN; one
 * statement for the board, the post, the author's vote and the post read back (data-modifying
 * CTEs); one statement for the outbox row, with the endpoints subscribed at that moment, and its
 * NOTIFYs (the outbox's and the public pages', as Chorus sends); COMMIT.
 *
 * It pays what Chorus promises and cannot skip: one Redis sliding-window call per request,
 * because limits hold across instances (a counter in this process would be cheaper and would not
 * keep that promise), and the event in the post's transaction. Rows become posts through
 * Chorus's own mapper. No validation, no logging, no metrics, no idempotency store: a lower bound,
 * not a product. Started by floor.bench.ts with FLOOR_* variables; prints its port on stdout.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Redis from 'ioredis';
import { Pool, PoolClient } from 'pg';
import type { AppConfig } from '../../src/config/app-config';
import { Links } from '../../src/config/links';
import { PostRow, postSelect, toPostResponse } from '../../src/posts/post.mapper';
import { bearerKey, FloorCaller, send, serveFloor } from './floor-http';

const pool = new Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: 10 });
const redis = new Redis(process.env.FLOOR_REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true });
const BASE = process.env.FLOOR_BASE_URL ?? 'https://chorus.bench';
const KEY_TTL_MS = 5_000;

const ORDER = 'p.created_at DESC, p.id DESC';
const statement = (name: string, text: string) => (values: unknown[]) => ({ name: `strong_${name}`, text, values });

const caller = statement(
  'caller',
  `SELECT k.created_by, w.id AS workspace_id, w.slug, w.plan
     FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
    WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
);
const list = statement(
  'list',
  `${postSelect(`(SELECT * FROM posts p WHERE p.workspace_id = $1 AND p.merged_into_id IS NULL
                   ORDER BY ${ORDER} LIMIT $2 OFFSET $3)`)} ORDER BY ${ORDER}`,
);
const insertPost = statement(
  'insert_post',
  `WITH board AS (SELECT id FROM boards WHERE workspace_id = $1 AND slug = $2),
        inserted AS (
          INSERT INTO posts (workspace_id, board_id, title, body, category, author_id, votes)
          SELECT $1, board.id, $3, $4, $5, $6, 1 FROM board
          RETURNING *),
        vote AS (INSERT INTO votes (workspace_id, post_id, person_id) SELECT workspace_id, id, author_id FROM inserted)
   ${postSelect('inserted')}`,
);
const recordEvent = statement(
  'record_event',
  `WITH event AS (
     INSERT INTO outbox_events (workspace_id, type, data, actor_id, endpoint_ids)
     SELECT $1, $2, $3, $4, ARRAY(
       SELECT e.id FROM webhook_endpoints e JOIN workspaces w ON w.id = e.workspace_id
        WHERE e.workspace_id = $1 AND e.enabled AND $2 = ANY (e.events) AND w.plan <> 'free')
     RETURNING id)
   SELECT pg_notify('chorus_outbox', ''), pg_notify('chorus_site', $1::text) FROM event`,
);

// Chorus's own mapping from rows to posts: the same work per post as Chorus does.
const links = new Links({ baseUrl: BASE, publicBaseUrl: BASE } as AppConfig);

const callers = new Map<string, { caller: FloorCaller | null; expiresAt: number }>();

async function authenticate(req: IncomingMessage): Promise<FloorCaller | null> {
  const key = bearerKey(req);
  if (!key) return null;
  const hash = createHash('sha256').update(key).digest('hex');
  const now = Date.now();
  const hit = callers.get(hash);
  if (hit && hit.expiresAt > now) return hit.caller;
  const { rows } = await pool.query(caller([hash]));
  callers.set(hash, { caller: rows[0] ?? null, expiresAt: now + KEY_TTL_MS });
  return rows[0] ?? null;
}

async function listPosts(caller: FloorCaller, res: ServerResponse) {
  const { rows } = await pool.query<PostRow>(list([caller.workspace_id, 26, 0]));
  const data = rows.slice(0, 25).map((row) => toPostResponse(row, caller.slug, links));
  send(res, 200, { data, has_more: rows.length > 25, next_offset: rows.length > 25 ? 25 : null });
}

async function create(caller: FloorCaller, body: { board: string; title: string; body?: string }, res: ServerResponse) {
  const client: PoolClient = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<PostRow>(
      insertPost([caller.workspace_id, body.board, body.title, body.body ?? '', 'feature', caller.created_by]),
    );
    if (!rows[0]) {
      await client.query('ROLLBACK');
      client.release();
      return send(res, 404, { error: { code: 'not_found', message: `No such board "${body.board}" in this workspace.` } });
    }
    const post = toPostResponse(rows[0], caller.slug, links);
    await client.query(recordEvent([caller.workspace_id, 'post.created', JSON.stringify({ post }), caller.created_by]));
    await client.query('COMMIT');
    client.release();
    send(res, 201, { data: post });
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    client.release(error as Error);
    throw error;
  }
}

serveFloor(redis, { authenticate, list: listPosts, create, end: () => pool.end() });
