"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
const node_crypto_1 = require("node:crypto");
const node_http_1 = require("node:http");
const ioredis_1 = __importDefault(require("ioredis"));
const pg_1 = require("pg");
const links_1 = require("../../src/config/links");
const post_mapper_1 = require("../../src/posts/post.mapper");
const sliding_window_1 = require("../../src/rate-limit/sliding-window");
const pool = new pg_1.Pool({ connectionString: process.env.FLOOR_DATABASE_URL, max: 10 });
const redis = new ioredis_1.default(process.env.FLOOR_REDIS_URL ?? 'redis://127.0.0.1:6379');
const WINDOW_MS = Number(process.env.FLOOR_WINDOW_MS ?? 60_000);
const BASE = process.env.FLOOR_BASE_URL ?? 'https://chorus.bench';
redis.defineCommand('window', { numberOfKeys: 1, lua: sliding_window_1.SLIDING_WINDOW_LUA });
const ORDER = 'p.created_at DESC, p.id DESC';
const LIST = `${(0, post_mapper_1.postSelect)(`(SELECT * FROM posts p WHERE p.workspace_id = $1 AND p.merged_into_id IS NULL
                   ORDER BY ${ORDER} LIMIT $2 OFFSET $3)`)} ORDER BY ${ORDER}`;
const links = new links_1.Links({ baseUrl: BASE, publicBaseUrl: BASE });
const send = (res, status, body) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
};
async function authenticate(req) {
    const key = /^bearer +(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
    if (!key)
        return null;
    const { rows } = await pool.query(`SELECT k.id AS key_id, k.created_by, w.id AS workspace_id, w.slug, w.plan
       FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL`, [(0, node_crypto_1.createHash)('sha256').update(key).digest('hex')]);
    return rows[0] ?? null;
}
async function list(caller, res) {
    const { rows } = await pool.query(LIST, [caller.workspace_id, 26, 0]);
    const data = rows.slice(0, 25).map((row) => (0, post_mapper_1.toPostResponse)(row, caller.slug, links));
    send(res, 200, { data, has_more: rows.length > 25, next_offset: rows.length > 25 ? 25 : null });
}
async function create(caller, body, res) {
    const client = await pool.connect();
    try {
        await client.query('START TRANSACTION');
        const board = await client.query(`SELECT id FROM boards WHERE workspace_id = $1 AND slug = $2 LIMIT 1`, [
            caller.workspace_id,
            body.board,
        ]);
        if (!board.rows[0])
            throw new Error('no board');
        const inserted = await client.query(`INSERT INTO posts (workspace_id, board_id, title, body, category, author_id, votes)
       VALUES ($1, $2, $3, $4, 'feature', $5, 1) RETURNING id, status, created_at, updated_at`, [caller.workspace_id, board.rows[0].id, body.title, body.body ?? '', caller.created_by]);
        const id = inserted.rows[0].id;
        await client.query(`INSERT INTO votes (workspace_id, post_id, person_id) VALUES ($1, $2, $3)`, [
            caller.workspace_id,
            id,
            caller.created_by,
        ]);
        const { rows } = await client.query(`${(0, post_mapper_1.postSelect)()} WHERE p.workspace_id = $1 AND p.id = $2`, [
            caller.workspace_id,
            id,
        ]);
        const post = (0, post_mapper_1.toPostResponse)(rows[0], caller.slug, links);
        await client.query(`INSERT INTO outbox_events (workspace_id, type, data, actor_id, endpoint_ids)
       SELECT $1, $2, $3, $4, ARRAY(
         SELECT e.id FROM webhook_endpoints e JOIN workspaces w ON w.id = e.workspace_id
          WHERE e.workspace_id = $1 AND e.enabled AND $2 = ANY (e.events) AND w.plan <> 'free')`, [
            caller.workspace_id,
            'post.created',
            JSON.stringify({ post }),
            caller.created_by,
        ]);
        await client.query(`SELECT pg_notify($1, '')`, ['chorus_outbox']);
        await client.query('COMMIT');
        send(res, 201, { data: post });
    }
    catch (error) {
        await client.query('ROLLBACK').catch(() => { });
        throw error;
    }
    finally {
        client.release();
    }
}
const server = (0, node_http_1.createServer)((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
        (async () => {
            const caller = await authenticate(req);
            if (!caller)
                return send(res, 401, { error: { code: 'unauthorized', message: 'The API key is wrong or revoked.' } });
            const limit = caller.plan === 'business' ? 300 : 60;
            const [allowed] = (await redis.window(`chorus:rl:ws:${caller.workspace_id}`, limit, WINDOW_MS, '1', (0, node_crypto_1.randomBytes)(6).toString('hex')));
            if (!allowed)
                return send(res, 429, { error: { code: 'rate_limited', message: 'Too many requests.' } });
            if (req.method === 'GET' && req.url?.startsWith('/api/v1/posts'))
                return list(caller, res);
            if (req.method === 'POST' && req.url === '/api/v1/posts') {
                return create(caller, JSON.parse(Buffer.concat(chunks).toString('utf8')), res);
            }
            send(res, 404, { error: { code: 'not_found', message: 'No route.' } });
        })().catch((error) => send(res, 500, { error: { code: 'server_error', message: error.message } }));
    });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void pool.end();
    redis.disconnect();
});
//# sourceMappingURL=floor-server.js.map