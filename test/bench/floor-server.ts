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
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Redis from 'ioredis';
import { Pool } from 'pg';
import type { AppConfig } from '../../src/config/app-config';
import { Links } from '../../src/config/links';
import { postSelect, toPostResponse } from '../../src/posts/post.mapper';
import { bearerKey, FloorCaller, send, serveFloor } from './floor-http';

const pool = new Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: 10 });
const redis = new Redis(process.env.FLOOR_REDIS_URL ?? 'redis://127.0.0.1:6379');
const BASE = process.env.FLOOR_BASE_URL ?? 'https://chorus.bench';

const ORDER = 'p.created_at DESC, p.id DESC';
const LIST = `${postSelect(`(SELECT * FROM posts p WHERE p.workspace_id = $1 AND p.merged_into_id IS NULL
                   ORDER BY ${ORDER} LIMIT $2 OFFSET $3)`)} ORDER BY ${ORDER}`;
// Chorus's own mapping from rows to posts: the same work per post as Chorus does.
const links = new Links({ baseUrl: BASE, publicBaseUrl: BASE } as AppConfig);

async function authenticate(req: IncomingMessage): Promise<FloorCaller | null> {
  const key = bearerKey(req);
  if (!key) return null;
  const { rows } = await pool.query(
    `SELECT k.id AS key_id, k.created_by, w.id AS workspace_id, w.slug, w.plan
       FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    [createHash('sha256').update(key).digest('hex')],
  );
  return rows[0] ?? null;
}

async function list(caller: FloorCaller, res: ServerResponse) {
  const { rows } = await pool.query(LIST, [caller.workspace_id, 26, 0]);
  const data = rows.slice(0, 25).map((row) => toPostResponse(row, caller.slug, links));
  send(res, 200, { data, has_more: rows.length > 25, next_offset: rows.length > 25 ? 25 : null });
}

async function create(caller: FloorCaller, body: { board: string; title: string; body?: string }, res: ServerResponse) {
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

serveFloor(redis, { authenticate, list, create, end: () => pool.end() });
