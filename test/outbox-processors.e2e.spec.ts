import { spawn } from 'node:child_process';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config/app-config';
import { PostsService } from '../src/posts/posts.service';
import { EndpointsService } from '../src/webhooks/endpoints.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { runBuilt, Running } from './support/processes';
import { onEmbeddedDatabase, TEST_ENCRYPTION_KEY } from './support/test-app';
import { createCitusDatabase, dropCitusDatabase, onCitus } from './support/citus';

// Several outbox processors (dist/src/worker.js, one process each) on one PostgreSQL: no
// delivery is sent twice, and a processor killed mid-send loses nothing. PGlite is a single
// process and session, so these tests need a real PostgreSQL.
//
// The file works in a database of its own: test files that run a processor in process
// (RUN_WORKER: 'true') on the run's shared database would take part in (and, with their own
// settings, disturb) the work counted here.

const embedded = onEmbeddedDatabase();
if (embedded) {
  console.warn('test/outbox-processors.e2e.spec.ts: SKIPPED, these tests need PostgreSQL (the embedded PGlite is one process).');
}
const describePg = embedded ? describe.skip : describe;

/**
 * The processors' send timeout, and so their lease (2 × it + 1 s). On Citus 8 s: at load 19 a
 * survivor's writes there outlasted a 5 s lease, and its deliveries were sent again by the other
 * (the at-least-once window, not the processors' fault), which these tests would count as sent
 * twice by the processor under test; on a slower machine at load 10 to 12, a 9 s lease too (48
 * sent twice against 31 in flight).
 */
const TIMEOUT_MS = onCitus() ? 8_000 : 2_000;
const LEASE_MS = 2 * TIMEOUT_MS + 1_000; // OutboxProcessor.leaseMs
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How long waits may take: twice as long on Citus, where three PostgreSQL servers, three
 * processors and the test share this machine's two cores (a wait is a bound on liveness here,
 * never a figure: the benchmarks measure speed).
 */
const PATIENCE = onCitus() ? 2 : 1;
/**
 * Events the three processors share: 400 on Citus, where 1,000 took 54 to 65 s alone and ran
 * past 120 s beside the other Citus suites in a full run (7 deliveries/s); enough for each
 * processor to claim some, and every one to arrive once.
 */
const EVENTS = onCitus() ? 400 : 1_000;
const EVENTS_TEXT = EVENTS.toLocaleString('en');

async function until<T>(what: string, check: () => Promise<T | false | undefined> | T | false | undefined, timeoutMs: number) {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - started > timeoutMs * PATIENCE) throw new Error(`timed out after ${timeoutMs * PATIENCE} ms waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * A local receiver: 200 to everything (after `delayMs`), counting each Chorus-Delivery. It runs
 * in a process of its own, so that its answers do not wait on this busy process (a late answer
 * is a timeout, and a timeout is rightly retried: sent again).
 */
interface Receiver {
  url: string;
  /** Times each delivery id arrived. */
  counts: Map<string, number>;
  /** Times each event (by data.post.id) arrived, whatever the delivery id. */
  events: Map<number, number>;
  arrivals: number;
  close(): Promise<void>;
}

const RECEIVER = `
const http = require('node:http');
const delayMs = Number(process.argv[1]);
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    process.send({ id: String(req.headers['chorus-delivery']), postId: Number(body.data.post.id), at: Date.now() });
    const answer = () => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
  req.on('error', () => {});
  res.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
`;

async function startReceiver(delayMs = 0): Promise<Receiver> {
  const counts = new Map<string, number>();
  const events = new Map<number, number>();
  const child = spawn(process.execPath, ['-e', RECEIVER, String(delayMs)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const receiver = { counts, events, arrivals: 0 } as Receiver;
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`receiver exited with ${code}`)));
    child.on('message', (m: { port?: number; id?: string; postId?: number }) => {
      if (m.port) return resolve(m.port);
      counts.set(m.id!, (counts.get(m.id!) ?? 0) + 1);
      events.set(m.postId!, (events.get(m.postId!) ?? 0) + 1);
      receiver.arrivals++;
    });
  });
  receiver.url = `http://127.0.0.1:${port}/hooks/chorus`;
  receiver.close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return receiver;
}

const withDatabase = (serverUrl: string, name: string) =>
  Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();

describePg('several outbox processors on one PostgreSQL', () => {
  // (The body of a describe.skip still runs: nothing here may assume PostgreSQL.)
  const serverUrl: string = embedded ? '' : JSON.parse(process.env.CHORUS_TEST_DATABASE!).serverUrl;
  const dbName = `chorus_test_outbox_${Date.now()}_${process.pid}`;
  const dbUrl = embedded ? '' : withDatabase(serverUrl, dbName);
  let app: NestExpressApplication;
  let sql: Client;
  const workers: Running[] = [];
  const receivers: Receiver[] = [];

  const workerEnv = {
    DATABASE_URL: dbUrl,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms',
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
  };

  /** Starts `n` worker processes and waits until each one runs. */
  async function startWorkers(n: number, env: Record<string, string> = {}): Promise<Running[]> {
    const started = Array.from({ length: n }, () => runBuilt('worker', [], { ...workerEnv, ...env }));
    workers.push(...started);
    await Promise.all(started.map((w) => w.waitFor(/Outbox processor running/, 30_000)));
    return started;
  }

  /** SIGTERM, and the exit code ('late' when it did not exit within 10 s). */
  async function stopWorker(worker: Running): Promise<number | 'late' | null> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 10_000)));
    try {
      return await Promise.race([worker.stop('SIGTERM'), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function workspaceWithEndpoint(receiver: Receiver): Promise<TestWorkspace> {
    const ws = await createWorkspace(app, { plan: 'business' });
    await app.get(EndpointsService).create({ workspaceId: ws.id, plan: 'business' }, { url: receiver.url, events: ['post.created'] });
    return ws;
  }

  const statuses = async (workspaceId: string): Promise<Record<string, number>> => {
    const { rows } = await sql.query(
      `SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE workspace_id = $1 GROUP BY status`,
      [workspaceId],
    );
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  };

  /** Worker pids (from locked_by = host:pid:random) holding claims right now, with their counts. */
  const claimsByPid = async (): Promise<Map<number, number>> => {
    const { rows } = await sql.query(
      `SELECT split_part(locked_by, ':', 2)::int AS pid, count(*)::int AS n FROM webhook_deliveries
        WHERE locked_by IS NOT NULL AND status = 'pending' GROUP BY 1`,
    );
    return new Map(rows.map((r) => [r.pid, r.n]));
  };

  beforeAll(async () => {
    if (onCitus()) createCitusDatabase(dbName); // with the extension on every node, and the workers registered
    else {
      const admin = new Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${dbName}`);
      await admin.end();
    }
    const config = loadConfig({
      DATABASE_URL: dbUrl,
      BASE_URL: 'https://chorus.test',
      RUN_WORKER: 'false', // this process only makes events; the workers deliver them
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: 'error',
    });
    app = await createApp(config, { url: dbUrl, embedded: false, close: async () => {} });
    await app.init();
    sql = new Client({ connectionString: dbUrl });
    await sql.connect();
  });

  // A test that failed half-way leaves no worker behind to take part in the next.
  afterEach(async () => {
    for (const w of workers) {
      const complaints = w.output().split('\n').filter((line) => /\b(WARN|ERROR)\b/.test(line));
      if (complaints.length > 0) console.warn(`worker ${w.child.pid} complained:\n${complaints.join('\n')}`);
    }
    const left = workers.splice(0).filter((w) => w.child.exitCode === null && w.child.signalCode === null);
    await Promise.all(left.map((w) => w.stop('SIGKILL')));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  afterAll(async () => {
    await sql?.end();
    await app?.close();
    if (onCitus()) return dropCitusDatabase(dbName);
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  });

  it(`three processors deliver ${EVENTS_TEXT} events, each delivery exactly once, and share the work`, async () => {
    const receiver = await startReceiver(5);
    receivers.push(receiver);
    const ws = await workspaceWithEndpoint(receiver);
    // The product's 10 s timeout: a slow answer on a busy machine is then not a (rightful) retry.
    const three = await startWorkers(3, { WEBHOOK_TIMEOUT_MS: '10000' });
    const started = Date.now();

    // Which workers claim deliveries, sampled while they work.
    const claimedBy = new Set<number>();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const pid of (await claimsByPid()).keys()) claimedBy.add(pid);
        await sleep(20);
      }
    })();

    // EVENTS posts, ten at a time, while the processors run: each commit NOTIFYs them.
    const posts = app.get(PostsService);
    const postIds: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < EVENTS) {
          const i = next++;
          postIds.push((await posts.create(ws.actor, { board: 'ideas', title: `Event number ${i}` })).id);
        }
      }),
    );

    const created = Date.now();
    await until(`${EVENTS_TEXT} delivered deliveries`, async () => (await statuses(ws.id)).delivered === EVENTS && receiver.counts.size === EVENTS, 40_000).catch(
      async (error) => {
        const { rows } = await sql.query(
          `SELECT coalesce(status_code::text, error) AS outcome, count(*)::int AS n FROM delivery_attempts WHERE workspace_id = $1 GROUP BY 1`,
          [ws.id],
        );
        console.warn(`statuses ${JSON.stringify(await statuses(ws.id))}; ${receiver.arrivals} arrivals; attempts ${JSON.stringify(rows)}`);
        throw error;
      },
    );
    const done = Date.now();
    await sleep(300); // anything sent twice would be arriving by now
    sampling = false;
    await sampler;

    expect(await statuses(ws.id)).toEqual({ delivered: EVENTS });
    const twice = [...receiver.counts].filter(([, n]) => n !== 1);
    if (twice.length > 0) {
      const { rows } = await sql.query(
        `SELECT coalesce(status_code::text, error) AS outcome, count(*)::int AS n, max(duration_ms) AS max_ms
           FROM delivery_attempts WHERE workspace_id = $1 GROUP BY 1`,
        [ws.id],
      );
      console.warn(`${twice.length} deliveries arrived more than once; attempts: ${JSON.stringify(rows)}`);
    }
    expect(twice).toEqual([]);
    expect(receiver.arrivals).toBe(EVENTS);
    expect([...receiver.events.keys()].sort((a, b) => a - b)).toEqual([...postIds].sort((a, b) => a - b));
    // Every delivery id in the table arrived, and each had one attempt, recorded once.
    const { rows: ids } = await sql.query(`SELECT id FROM webhook_deliveries WHERE workspace_id = $1`, [ws.id]);
    expect(ids.every((r) => receiver.counts.get(r.id) === 1)).toBe(true);
    const { rows: [attempts] } = await sql.query(
      `SELECT count(*)::int AS n, count(DISTINCT delivery_id)::int AS distinct_deliveries,
              count(*) FILTER (WHERE status_code = 200)::int AS ok FROM delivery_attempts WHERE workspace_id = $1`,
      [ws.id],
    );
    expect(attempts).toEqual({ n: EVENTS, distinct_deliveries: EVENTS, ok: EVENTS });
    const { rows: [usage] } = await sql.query(`SELECT attempts FROM delivery_usage WHERE workspace_id = $1`, [ws.id]);
    expect(usage.attempts).toBe(EVENTS);
    // Each of the three claimed some of the work.
    for (const worker of three) expect(claimedBy).toContain(worker.child.pid);
    console.log(
      `3 processors: ${EVENTS_TEXT} posts created in ${created - started} ms (delivered meanwhile); ` +
        `all delivered ${done - created} ms after the last commit, ${done - started} ms in all.`,
    );

    const codes = await Promise.all(three.map(stopWorker));
    expect(codes).toEqual([0, 0, 0]);
  }, 60_000 * PATIENCE);

  it('a processor killed with SIGKILL mid-send loses nothing; duplicates are at most what it had in flight', async () => {
    const receiver = await startReceiver(200);
    receivers.push(receiver);
    const ws = await workspaceWithEndpoint(receiver);
    const three = await startWorkers(3);
    const EVENTS = 400;

    await sql.query(
      `INSERT INTO outbox_events (workspace_id, type, data)
       SELECT $1, 'post.created', json_build_object('post', json_build_object('id', g, 'title', 'Event ' || g))
         FROM generate_series(1, $2::int) g`,
      [ws.id, EVENTS],
    );
    await sql.query(`SELECT pg_notify('chorus_outbox', '')`);

    // Once deliveries arrive, take the worker with the most claims: freeze it (so that it claims
    // and sends nothing more), count what it holds, then kill it.
    await until('some arrivals', () => receiver.arrivals >= 40, 20_000);
    const claims = await claimsByPid();
    const victim = three.reduce((best, w) => ((claims.get(w.child.pid!) ?? 0) > (claims.get(best.child.pid!) ?? 0) ? w : best));
    victim.child.kill('SIGSTOP');
    const { rows: [held] } = await sql.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE workspace_id = $1 AND status = 'pending' AND locked_by LIKE $2`,
      [ws.id, `%:${victim.child.pid}:%`],
    );
    const inFlight: number = held.n;
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    expect(await victim.stop()).toBe(null); // killed by a signal: no exit code
    expect(inFlight).toBeGreaterThan(0);

    // Its claims run out after the lease; the others take them over.
    await until(
      'every delivery to end',
      async () => {
        const s = await statuses(ws.id);
        return (s.delivered ?? 0) + (s.failed ?? 0) === EVENTS && !s.pending && receiver.events.size === EVENTS;
      },
      LEASE_MS + 20_000,
    );
    const recoveredAfter = Date.now() - killedAt;

    const s = await statuses(ws.id);
    expect(s.pending).toBeUndefined();
    expect((s.delivered ?? 0) + (s.failed ?? 0)).toBe(EVENTS);
    expect(s.delivered).toBe(EVENTS); // the receiver always answers 200
    for (let id = 1; id <= EVENTS; id++) expect(receiver.events.get(id) ?? 0).toBeGreaterThanOrEqual(1);
    const extra = [...receiver.counts.values()].reduce((sum, n) => sum + (n - 1), 0);
    expect(receiver.counts.size).toBe(EVENTS);
    expect(extra).toBeLessThanOrEqual(inFlight);
    const { rows: stuck } = await sql.query(`SELECT id FROM webhook_deliveries WHERE workspace_id = $1 AND locked_by IS NOT NULL`, [ws.id]);
    expect(stuck).toEqual([]);
    console.log(
      `SIGKILL test: ${EVENTS} events; killed worker held ${inFlight} claims; ${extra} sent twice; ` +
        `all ended ${recoveredAfter} ms after the kill (lease ${LEASE_MS} ms).`,
    );

    const survivors = three.filter((w) => w !== victim);
    expect(await Promise.all(survivors.map(stopWorker))).toEqual([0, 0]);
  }, 60_000 * PATIENCE);

  it('a processor stopped with SIGTERM mid-send finishes and records what it sent, and exits 0', async () => {
    const receiver = await startReceiver(300);
    receivers.push(receiver);
    const ws = await workspaceWithEndpoint(receiver);
    const two = await startWorkers(2);
    const EVENTS = 300;
    await sql.query(
      `INSERT INTO outbox_events (workspace_id, type, data)
       SELECT $1, 'post.created', json_build_object('post', json_build_object('id', g)) FROM generate_series(1, $2::int) g`,
      [ws.id, EVENTS],
    );
    await sql.query(`SELECT pg_notify('chorus_outbox', '')`);

    await until('some arrivals', () => receiver.arrivals >= 40, 20_000);
    const claims = await claimsByPid();
    const [stopped, other] = (claims.get(two[0].child.pid!) ?? 0) >= (claims.get(two[1].child.pid!) ?? 0) ? two : [two[1], two[0]];
    const held = claims.get(stopped.child.pid!) ?? 0;
    expect(held).toBeGreaterThan(0);
    const code = await stopWorker(stopped);
    const output = stopped.output();
    expect({ code, output }).toEqual({ code: 0, output: expect.not.stringMatching(/could not be recorded|Shutdown failed/) });
    // What it held is recorded (delivered) or handed back, not left to its lease.
    const { rows: [left] } = await sql.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE workspace_id = $1 AND status = 'pending' AND locked_by LIKE $2`,
      [ws.id, `%:${stopped.child.pid}:%`],
    );
    expect(left.n).toBe(0);

    await until(
      'every delivery to end',
      async () => (await statuses(ws.id)).delivered === EVENTS && receiver.counts.size === EVENTS,
      LEASE_MS + 20_000,
    );
    await sleep(300);
    expect([...receiver.counts.values()].filter((n) => n > 1)).toEqual([]);
    expect(await stopWorker(other)).toBe(0);
  }, 60_000 * PATIENCE);
});
