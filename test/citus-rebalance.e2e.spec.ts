import type { AddressInfo } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Client as PgClient } from 'pg';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config/app-config';
import { coordinatorPort, createCitusDatabase, dropCitusDatabase, onCitus, startExtraNode } from './support/citus';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client } from './support/http';
import { closeReceivers, Receiver } from './support/receiver';
import { TEST_ENCRYPTION_KEY } from './support/test-app';
import { sleep, until } from './support/wait';

// Elsewhere it is reported as skipped by a name that says where it runs.
const describeCitus: (name: string, fn: () => void) => void = onCitus()
  ? describe
  : (name, fn) => describe.skip(`${name} [SKIPPED: on Citus only, run by npm run test:citus]`, fn);

/** Posts each workspace has before the move. */
const SEEDED = 5;
/**
 * Shards per distributed table in this test's database (Citus's default is 32): 4 shard groups
 * on two workers, 2 each; with a third worker the rebalancer moves one of them, with the rows
 * of its workspaces in every colocated table. A move takes about 12 s even unloaded (Citus's
 * background task queue is polled every 5 s, and logical replication has its own waits): with
 * 6 groups, two moves took 20 s.
 */
const SHARDS = 4;

/**
 * An operator adds a worker node and rebalances while Chorus serves (docs/citus.md): posts
 * are created through the API all along, and their webhooks delivered to a local receiver by
 * the outbox processor, while Citus moves shard groups to the new node (logical replication,
 * writes to a shard group held only for the switch). No answer is a 5xx, no post is lost, and
 * every delivery arrives, once. The new node is a PostgreSQL server of this test's own (the
 * cluster's port + 3), registered in this test's database only; both go at the end, and the
 * cluster is left with its two workers.
 */
describeCitus('on Citus, a worker node added and shards rebalanced while posts are created and delivered', () => {
  const dbName = `chorus_citus_rebalance_${Date.now()}_${process.pid}`;
  const extraPort = coordinatorPort() + 3;
  let extra: ReturnType<typeof startExtraNode> | undefined;
  let app: NestExpressApplication;
  let baseUrl: string;
  let sql: PgClient;
  let receiver: Receiver;
  const workspaces: TestWorkspace[] = [];

  beforeAll(async () => {
    extra = startExtraNode(extraPort);
    const node = new PgClient({ connectionString: extra.url('postgres') });
    await node.connect();
    await node.query(`DROP DATABASE IF EXISTS ${dbName}`);
    await node.query(`CREATE DATABASE ${dbName}`);
    await node.end();
    const onNode = new PgClient({ connectionString: extra.url(dbName) });
    await onNode.connect();
    await onNode.query(`CREATE EXTENSION citus`);
    await onNode.end();

    const url = createCitusDatabase(dbName);
    sql = new PgClient({ connectionString: url });
    await sql.connect();
    // Read by the migrations' create_distributed_table (their sessions start after this).
    await sql.query(`ALTER DATABASE ${dbName} SET citus.shard_count = ${SHARDS}`);

    receiver = await Receiver.start();
    const config = loadConfig({
      DATABASE_URL: url,
      BASE_URL: 'https://chorus.test',
      RUN_WORKER: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      AUTH_FAILURE_LIMIT: '100000',
      // The business plan's 300 requests a window, per second: the load is never refused (429).
      RATE_LIMIT_WINDOW_MS: '1000',
      LOG_LEVEL: 'error',
    });
    app = await createApp(config, { url, embedded: false, close: async () => {} });
    await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    // One workspace in each shard group (those made for a group already taken stay idle):
    // whichever groups the rebalancer moves, posts of a moving workspace are created meanwhile.
    const groups = new Set<string>();
    while (groups.size < SHARDS) {
      const ws = await createWorkspace(app, { plan: 'business' });
      const { rows } = await sql.query(`SELECT get_shard_id_for_distribution_column('posts', $1::uuid)::text AS shard`, [ws.id]);
      if (groups.has(rows[0].shard)) continue;
      groups.add(rows[0].shard);
      const answer = await new Client(baseUrl, ws.key).post('/api/v1/webhook_endpoints', {
        url: `${receiver.url}/${ws.slug}`,
        events: ['post.created'],
      });
      expect(answer.status).toBe(201);
      workspaces.push(ws);
    }
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await closeReceivers();
    await sql?.end();
    // The database goes from every node (the new one's metadata with it), then the node itself.
    dropCitusDatabase(dbName);
    extra?.remove();
  }, 60_000);

  it('answers every request, keeps every post and delivers every event once', async () => {
    /** Every answer of the API, and the posts it created, by workspace. */
    const statuses = new Map<number, number>();
    const created = new Map<string, number[]>(workspaces.map((ws) => [ws.id, []]));
    const create = async (ws: TestWorkspace, title: string) => {
      const answer = await new Client(baseUrl, ws.key).post('/api/v1/posts', { board: 'ideas', title });
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 201) created.get(ws.id)!.push(answer.body.data.id);
    };
    for (const ws of workspaces) for (let i = 0; i < SEEDED; i++) await create(ws, `Before the move ${i}`);

    /** The workspaces whose shard group is on the node at `port`. */
    const workspacesOn = async (port: number): Promise<string[]> => {
      const { rows } = await sql.query(
        `SELECT w.id FROM unnest($1::uuid[]) AS w(id)
           JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('posts', w.id)
           JOIN pg_dist_node n ON n.groupid = p.groupid
          WHERE n.nodeport = $2`,
        [workspaces.map((ws) => ws.id), port],
      );
      return rows.map((r) => r.id);
    };
    expect(await workspacesOn(extraPort)).toEqual([]);
    await sql.query(`SELECT citus_add_node('127.0.0.1', $1)`, [extraPort]);

    // Four clients create posts, round the workspaces, until the rebalance is over and a second after.
    let creating = true;
    let n = 0;
    const load = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (creating) {
          const i = n++;
          await create(workspaces[i % workspaces.length], `During the move ${i}`);
        }
      }),
    );
    const started = Date.now();
    try {
      await sleep(500);
      await sql.query(`SELECT citus_rebalance_start()`);
      await sql.query(`SELECT citus_rebalance_wait()`);
      const moved = Date.now() - started;
      await sleep(1_000);
      creating = false;
      await load;
      console.log(
        `rebalance: ${moved} ms under load; ${(await workspacesOn(extraPort)).length} of ${workspaces.length} workspaces moved to the ` +
          `new node; ${n} posts created meanwhile; answers ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
    } finally {
      creating = false;
      await load;
    }

    const [{ state }] = (await sql.query(`SELECT state FROM citus_rebalance_status() ORDER BY job_id DESC LIMIT 1`)).rows;
    expect(state).toBe('finished');
    // Workspaces moved while their posts were created: else this test proves nothing.
    expect((await workspacesOn(extraPort)).length).toBeGreaterThan(0);
    expect([...statuses.keys()]).toEqual([201]); // no 5xx, nor any other refusal

    // Every post created is there, in its workspace.
    for (const ws of workspaces) {
      const { rows } = await sql.query(`SELECT id FROM posts WHERE workspace_id = $1 ORDER BY id`, [ws.id]);
      expect(rows.map((r) => Number(r.id))).toEqual([...created.get(ws.id)!].sort((a, b) => a - b));
    }

    // Every post's event arrives, at its workspace's endpoint, each delivery once.
    const total = [...created.values()].reduce((sum, ids) => sum + ids.length, 0);
    await until('every delivery to arrive', () => receiver.requests.length >= total, 60_000);
    await sleep(500); // anything sent twice would be arriving by now
    const arrived = new Map<string, number[]>(workspaces.map((ws) => [ws.id, []]));
    for (const request of receiver.requests) {
      const ws = workspaces.find((w) => request.path === `/${w.slug}`)!;
      arrived.get(ws.id)!.push(request.body.data.post.id);
    }
    for (const ws of workspaces) {
      expect([...arrived.get(ws.id)!].sort((a, b) => a - b)).toEqual([...created.get(ws.id)!].sort((a, b) => a - b));
    }
    const ids = receiver.requests.map((r) => r.headers['chorus-delivery']);
    expect(new Set(ids).size).toBe(total);
    const { rows: deliveries } = await sql.query(`SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status`);
    expect(deliveries).toEqual([{ status: 'delivered', n: total }]);
  }, 240_000);
});
