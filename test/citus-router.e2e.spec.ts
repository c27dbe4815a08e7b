import { Database } from '../src/database/sql';
import { Client as PgClient } from 'pg';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config/app-config';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Answer, Client } from './support/http';
import { createCitusDatabase, dropCitusDatabase, onCitus } from './support/citus';
import { TEST_ENCRYPTION_KEY } from './support/test-app';

// Elsewhere it is reported as skipped by a name that says where it runs.
const describeCitus: (name: string, fn: () => void) => void = onCitus()
  ? describe
  : (name, fn) => describe.skip(`${name} [SKIPPED: on Citus only, run by npm run test:citus]`, fn);

/** A command the coordinator sent to a node (citus.log_remote_commands), and the request it served. */
interface Remote {
  request: string;
  command: string;
  /** The node it went to, host:port. */
  node: string;
}

/**
 * On Citus every statement of one workspace's request is a single-shard ("router") query: the
 * coordinator sends each to the one node that holds the workspace's shards, naming only shards
 * of the workspace's shard group (its rows of every colocated table) or of reference tables.
 * The API's journey runs here with citus.log_remote_commands on every connection of the app,
 * and each command it sends is checked against the workspace's shards. (Run by
 * `npm run test:citus`; skipped elsewhere.)
 */
describeCitus('on Citus, every request of a workspace is single-shard', () => {
  const dbName = `chorus_citus_router_${Date.now()}_${process.pid}`;
  let url: string;
  let app: Awaited<ReturnType<typeof createApp>>;
  let api: Client;
  let sql: PgClient;
  let ws: TestWorkspace;
  let other: TestWorkspace;
  const remotes: Remote[] = [];
  let current = 'setup';
  /** Shard id → [table, shard index] for distributed tables; reference tables' shards are absent. */
  let shardIndex: Map<number, { table: string; index: number }>;

  beforeAll(async () => {
    url = createCitusDatabase(dbName);
    // Every connection of the app's pool (and only of its pool) logs what Citus sends to the nodes.
    const logged = new URL(url);
    logged.searchParams.set('options', '-c citus.log_remote_commands=on -c client_min_messages=notice');
    const config = loadConfig({
      DATABASE_URL: logged.toString(),
      BASE_URL: 'https://chorus.test',
      RUN_WORKER: 'false',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      AUTH_FAILURE_LIMIT: '100000',
      LOG_LEVEL: 'error',
    });
    const pg = require('pg') as typeof import('pg');
    const connect = pg.Client.prototype.connect;
    // Notices of every client the app opens, tagged with the request under way.
    pg.Client.prototype.connect = function (this: PgClient, ...args: unknown[]) {
      this.on('notice', (notice) => {
        const match = /^issuing (.*)$/s.exec(notice.message ?? '');
        const node = /on server \S+@(\S+)/.exec(notice.detail ?? '')?.[1] ?? '?';
        if (match) remotes.push({ request: current, command: match[1], node });
      });
      return (connect as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof connect;
    app = await createApp(config, { url: logged.toString(), embedded: false, close: async () => {} });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    ws = await createWorkspace(app, { plan: 'business' });
    other = await createWorkspace(app, { plan: 'business' });
    api = new Client(`http://127.0.0.1:${port}`, ws.key);
    sql = new PgClient({ connectionString: url });
    await sql.connect();
    const { rows } = await sql.query(
      `SELECT s.shardid::int AS shardid, s.logicalrelid::text AS table,
              (row_number() OVER (PARTITION BY s.logicalrelid ORDER BY s.shardminvalue::int) - 1)::int AS index
         FROM pg_dist_shard s JOIN pg_dist_partition p ON p.logicalrelid = s.logicalrelid
        WHERE p.partmethod = 'h'`,
    );
    shardIndex = new Map(rows.map((r) => [r.shardid, { table: r.table, index: r.index }]));
  }, 180_000);

  afterAll(async () => {
    await sql?.end();
    await app?.close();
    dropCitusDatabase(dbName);
  });

  /** The shard group index of a workspace (the same for every colocated table). */
  async function groupOf(workspaceId: string): Promise<number> {
    const { rows } = await sql.query(`SELECT get_shard_id_for_distribution_column('posts', $1::uuid)::int AS shardid`, [workspaceId]);
    return shardIndex.get(rows[0].shardid)!.index;
  }

  /** The node (host:port) that holds a workspace's shards. */
  async function nodeOf(workspaceId: string): Promise<string> {
    const { rows } = await sql.query(
      `SELECT nodename || ':' || nodeport AS node FROM citus_shards
        WHERE shardid = get_shard_id_for_distribution_column('posts', $1::uuid)`,
      [workspaceId],
    );
    return rows[0].node;
  }

  /** Runs one request, and answers it with the commands it sent to the nodes. */
  async function step(name: string, run: () => Promise<Answer>): Promise<Answer> {
    await new Promise((resolve) => setTimeout(resolve, 50)); // what the previous request left running (a key's use) is done
    current = name;
    const answer = await run();
    await new Promise((resolve) => setTimeout(resolve, 50));
    current = 'between';
    if (answer.status >= 400) throw new Error(`${name}: ${answer.status} ${answer.text}`);
    return answer;
  }

  it('runs the journey (key lookup, lists, search, create, status change, merge, votes, comments, endpoints, deliveries, idempotency) on one shard per statement', async () => {
    const created = await step('create a post', () => api.post('/api/v1/posts', { board: 'ideas', title: 'Dark mode for the dashboard', body: 'Please' }));
    const post = created.body.data;
    const second = (await step('create with an Idempotency-Key', () =>
      api.post('/api/v1/posts', { board: 'ideas', title: 'Export to CSV' }, { headers: { 'idempotency-key': 'journey-1' } }),
    )).body.data;
    await step('replay the Idempotency-Key', () => api.post('/api/v1/posts', { board: 'ideas', title: 'Export to CSV' }, { headers: { 'idempotency-key': 'journey-1' } }));
    await step('list posts', () => api.get('/api/v1/posts?limit=10'));
    await step('list posts by votes on a board', () => api.get('/api/v1/posts?board=ideas&sort=top&limit=10'));
    await step('search', () => api.get('/api/v1/posts?q=dark'));
    await step('similar posts', () => api.get('/api/v1/posts/similar?board=ideas&title=Dark%20mode%20please'));
    await step('read a post', () => api.get(`/api/v1/posts/${post.id}`));
    await step('list boards', () => api.get('/api/v1/boards'));
    await step('vote', () => api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name: 'Gus', email: 'gus@customer.example' } }));
    await step('list votes', () => api.get(`/api/v1/posts/${post.id}/votes`));
    await step('comment', () => api.post(`/api/v1/posts/${post.id}/comments`, { body: 'On our roadmap.' }));
    await step('list comments', () => api.get(`/api/v1/posts/${post.id}/comments`));
    await step('change the status', () => api.patch(`/api/v1/posts/${post.id}`, { status: 'planned' }));
    await step('merge', () => api.post(`/api/v1/posts/${second.id}/merge`, { into: post.id }));
    const endpoint = (await step('create an endpoint', () =>
      api.post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hook', events: ['post.created', 'post.status_changed'] }),
    )).body.data;
    await step('list endpoints', () => api.get('/api/v1/webhook_endpoints'));
    await step('read an endpoint', () => api.get(`/api/v1/webhook_endpoints/${endpoint.id}`));
    await step('change an endpoint', () => api.patch(`/api/v1/webhook_endpoints/${endpoint.id}`, { events: ['post.created'] }));
    await step('rotate its secret', () => api.post(`/api/v1/webhook_endpoints/${endpoint.id}/rotate_secret`));
    await step('send it a test event', () => api.post(`/api/v1/webhook_endpoints/${endpoint.id}/test`));
    await step('create a post with an endpoint', () => api.post('/api/v1/posts', { board: 'ideas', title: 'Webhooks for votes' }));
    await step("list an endpoint's deliveries", () => api.get(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries`));
    await step('list deliveries', () => api.get('/api/v1/deliveries'));
    await step('delete an endpoint', () => api.request('DELETE', `/api/v1/webhook_endpoints/${endpoint.id}`));

    const own = await groupOf(ws.id);
    const home = await nodeOf(ws.id);
    expect(await groupOf(other.id)).toEqual(expect.any(Number));
    const requests = [...new Set(remotes.filter((r) => r.request !== 'setup' && r.request !== 'between').map((r) => r.request))];
    // Every request reached the nodes (the tenant tables live there), and the key lookup too
    // (a reference table: read on the coordinator's copy, or a node's).
    expect(requests.length).toBeGreaterThanOrEqual(20);
    const wrong: string[] = [];
    for (const remote of remotes) {
      if (remote.request === 'setup') continue;
      const shards = [...remote.command.matchAll(/\b[a-z_]+_(\d{6,})\b/g)].map((m) => Number(m[1])).filter((id) => shardIndex.has(id));
      const groups = new Set(shards.map((id) => shardIndex.get(id)!.index));
      // One node, the workspace's, and shards of its group only (none of another workspace's),
      // whether during a request or after its answer (a key's last use is written beside it).
      const where = remote.request === 'between' ? 'after a request' : remote.request;
      if (remote.node !== home) wrong.push(`${where}: sent to ${remote.node}, not ${home}: ${remote.command}`);
      if (groups.size > 1 || [...groups].some((g) => g !== own)) wrong.push(`${where}: ${remote.command}`);
    }
    expect(wrong).toEqual([]);
    // What the journey sent: commands naming shards, every one of them in the workspace's group.
    const named = remotes.filter((r) => /\b[a-z_]+_\d{6,}\b/.test(r.command) && r.request !== 'setup');
    expect(named.length).toBeGreaterThan(requests.length);
  });

  it('a statement over every workspace is what the check catches', async () => {
    // The check itself: a list of every workspace's posts touches every shard group.
    const before = remotes.length;
    current = 'all workspaces';
    await app.get(Database).rows(`SELECT count(*) FROM posts`);
    current = 'between';
    const groups = new Set(
      remotes
        .slice(before)
        .flatMap((r) => [...r.command.matchAll(/\b[a-z_]+_(\d{6,})\b/g)].map((m) => Number(m[1])))
        .filter((id) => shardIndex.has(id))
        .map((id) => shardIndex.get(id)!.index),
    );
    expect(groups.size).toBeGreaterThan(1);
  });
});
