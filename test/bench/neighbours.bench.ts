/**
 * Noisy neighbours (issue 9): can one workspace's silent endpoints stall another's deliveries?
 * On the product's defaults (WEBHOOK_TIMEOUT_MS 10 s, PostgreSQL, the product's OutboxProcessor):
 * - workspace A (business) has 25 endpoints on a server that accepts connections and never
 *   answers, and makes 4 posts a second;
 * - workspace B (pro) has one healthy endpoint (answers 200 at once) and makes a post every 2 s.
 * Posts are created through PostsService (so the API's rate limit plays no part) for
 * BENCH_SECONDS; then the bench waits up to 30 s for B's deliveries still on their way, and
 * prints B's arrivals and commit-to-arrival latency, A's attempt rate and A's backlog, and a
 * verdict against the targets: every B delivery arrives, p99 ≤ 2 s. It prints, it does not fail.
 *
 * `npm run bench:neighbours`. Environment:
 * - BENCH_MODES: comma-separated, run in turn, each on a fresh database (default inline,workers3):
 *   `inline` is one processor in the API process (RUN_WORKER=true), `workersN` is N worker
 *   processes (dist/src/worker.js) and none in the API process. BENCH_WORKERS=N alone (without
 *   BENCH_MODES) runs that one mode, 0 meaning inline.
 * - BENCH_SECONDS: how long both workspaces post (default 60).
 * - BENCH_REENABLE=true: A re-enables its endpoints (EndpointsService.update, as PATCH does) every
 *   2 s while it posts, as a hostile tenant would once they are turned off after 20 failures.
 * - BENCH_DATABASE_URL: the PostgreSQL server; the bench works in `chorus_bench_neighbours`,
 *   dropped and created afresh for each mode. BENCH_KEEP=true keeps it after the last mode.
 *
 * B's commit time is taken right after create() resolves, in this process; its arrival when the
 * receiver (a process of its own, same clock) has read the request. A B delivery that has not
 * arrived when the bench stops counts in the percentiles with the time it had waited so far, and
 * a percentile that lands on one is printed as a lower bound (≥). A's rate is counted twice: the
 * connections the silent server (a process of its own) accepted, and the delivery_attempts rows
 * recorded (an attempt on a silent endpoint is recorded when it times out, 10 s after it began).
 */
import { Database } from '../../src/database/sql';
import type { ChildProcess } from 'node:child_process';
import { Actor, PostsService } from '../../src/posts/posts.service';
import { EndpointsService } from '../../src/webhooks/endpoints.service';
import {
  benchEnv,
  closeApi,
  firstArrivals,
  freshDatabase,
  log,
  pct,
  seedWorkspace,
  sleep,
  startApi,
  startHelper,
  startReceiver,
  startWorker,
  stopProcess,
  waitFor,
} from './support';

const DB_NAME = 'chorus_bench_neighbours';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const MODES = (process.env.BENCH_MODES ?? (process.env.BENCH_WORKERS ? workersMode(Number(process.env.BENCH_WORKERS)) : 'inline,workers3'))
  .split(',')
  .map((mode) => mode.trim())
  .filter(Boolean);
const A_ENDPOINTS = 25; // the business plan's endpoint count
const A_POST_EVERY_MS = 250; // 4 posts a second
const B_POST_EVERY_MS = 2_000;
const DRAIN_MS = 30_000; // how long B's outstanding deliveries may still take after posting stops
const TARGET_P99_MS = 2_000;
const REENABLE = process.env.BENCH_REENABLE === 'true';
const REENABLE_EVERY_MS = 2_000;

function workersMode(workers: number): string {
  return workers > 0 ? `workers${workers}` : 'inline';
}

function workersOf(mode: string): number {
  if (mode === 'inline') return 0;
  const match = /^workers([1-9][0-9]?)$/.exec(mode);
  if (!match) throw new Error(`BENCH_MODES: '${mode}' is neither 'inline' nor 'workersN'`);
  return Number(match[1]);
}

/** Accepts connections, reads what comes, never answers; records when each connection came. */
const SILENT_SERVER = `
const net = require('node:net');
const accepted = [];
let open = 0;
const server = net.createServer((socket) => {
  accepted.push(Date.now());
  open++;
  socket.on('error', () => {});
  socket.on('close', () => open--);
  socket.resume();
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'report') process.send({ accepted: { times: accepted, open } });
});
process.on('disconnect', () => process.exit(0));
`;

interface Result {
  mode: string;
  bQueued: number;
  bArrived: number;
  p50: string;
  p99: string;
  max: string;
  aConnectionsPerSecond: number;
  aAttemptsPerSecond: number;
  aPending: number;
  met: boolean;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** Commit-to-arrival waits, lower bounds for those still on their way; a percentile on one reads "≥". */
function waitPercentile(waits: { ms: number; arrived: boolean }[], p: number): string {
  if (waits.length === 0) return 'n/a';
  const at = pct(waits, p);
  return `${at.arrived ? '' : '≥'}${seconds(at.ms)}`;
}

async function runMode(mode: string): Promise<Result> {
  const workerCount = workersOf(mode);
  const database = await freshDatabase(DB_NAME);
  const receiver = await startReceiver();
  const silent = await startHelper(SILENT_SERVER);
  const env = benchEnv(database.url);
  // At 'error': the processor logs each of A's failed attempts as a warning.
  const app = await startApi(env, workerCount === 0, 'error');
  const workers: ChildProcess[] = [];
  try {
    const endpoints = app.get(EndpointsService);
    const a = await seedWorkspace(app, 'tenant-a', 'business');
    for (let i = 0; i < A_ENDPOINTS; i++) {
      await endpoints.create({ workspaceId: a.workspaceId, plan: 'business' }, { url: `http://127.0.0.1:${silent.port}/hooks/${i}`, events: ['post.created'] });
    }
    const b = await seedWorkspace(app, 'tenant-b', 'pro');
    await endpoints.create({ workspaceId: b.workspaceId, plan: 'pro' }, { url: receiver.url, events: ['post.created'] });
    workers.push(...(await Promise.all(Array.from({ length: workerCount }, () => startWorker(env)))));

    log('');
    log(
      `== ${mode}: ${workerCount === 0 ? 'one processor in the API process' : `${workerCount} worker processes, none in the API process`}; ` +
        `${SECONDS} s of posting; A ${REENABLE ? 're-enables' : 'leaves'} its disabled endpoints; database ${DB_NAME}`,
    );

    // Warm-up, and a check that the path works at all before anything is timed: one B post arrives.
    const posts = app.get(PostsService);
    const post = (actor: Actor, title: string) => posts.create(actor, { board: 'ideas', title, body: 'A post of the neighbours bench.' });
    await post(b, 'Warm-up');
    if (!(await waitFor(async () => (await receiver.count()) >= 1, 30_000))) throw new Error('the warm-up delivery to B did not arrive within 30 s');
    receiver.reset();

    const committed = new Map<number, number>(); // B's post id → commit time
    const failures: unknown[] = [];
    const creates: Promise<void>[] = [];
    const create = (actor: Actor, title: string, onCommit?: (id: number) => void) =>
      creates.push(
        post(actor, title).then(
          (p) => onCommit?.(p.id),
          (error) => void failures.push(error),
        ),
      );
    const started = Date.now();
    const stopAt = started + SECONDS * 1000;
    let aPosts = 0;
    let bPosts = 0;
    let reenabled = 0;
    const reenable = async () => {
      for (const endpoint of await endpoints.list(a.workspaceId)) {
        if (endpoint.enabled) continue;
        await endpoints.update(a.workspaceId, endpoint.id, { enabled: true });
        reenabled++;
      }
    };
    const reenabling = REENABLE ? setInterval(() => creates.push(reenable().catch((error) => void failures.push(error))), REENABLE_EVERY_MS) : undefined;
    // On a fixed timetable, not one after another: a slow create must not slow the posting rate.
    for (;;) {
      const nextA = started + aPosts * A_POST_EVERY_MS;
      const nextB = started + bPosts * B_POST_EVERY_MS;
      const next = Math.min(nextA, nextB);
      if (next >= stopAt) break;
      await sleep(next - Date.now());
      if (nextA <= Date.now()) create(a, `A ${aPosts++}`);
      if (nextB <= Date.now()) create(b, `B ${bPosts++}`, (id) => committed.set(id, Date.now()));
    }
    clearInterval(reenabling);
    await Promise.all(creates);
    const postingEnded = Date.now();
    const allArrived = async () => {
      const first = firstArrivals(await receiver.report());
      return [...committed.keys()].every((id) => first.has(id));
    };
    await waitFor(allArrived, Math.max(0, postingEnded + DRAIN_MS - Date.now()));
    const ended = Date.now();

    const arrivals = firstArrivals(await receiver.report());
    const { times: accepted, open } = await silent.ask<{ times: number[]; open: number }>('report', 'accepted');
    const db = app.get(Database);
    const [aRow]: { attempts: number; pending: number; delivered: number; failed: number; cancelled: number; disabled: number }[] = await db.rows(
      `SELECT (SELECT count(*)::int FROM delivery_attempts WHERE workspace_id = $1) AS attempts,
              (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = $1 AND status = 'pending') AS pending,
              (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = $1 AND status = 'delivered') AS delivered,
              (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = $1 AND status = 'failed') AS failed,
              (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = $1 AND status = 'cancelled') AS cancelled,
              (SELECT count(*)::int FROM webhook_endpoints WHERE workspace_id = $1 AND NOT enabled) AS disabled`,
      [a.workspaceId],
    );
    const [bRow]: { queued: number; attempts: number }[] = await db.rows(
      `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = $1) AS queued,
              (SELECT count(*)::int FROM delivery_attempts WHERE workspace_id = $1) AS attempts`,
      [b.workspaceId],
    );

    const waits = [...committed]
      .map(([id, at]) => (arrivals.has(id) ? { ms: arrivals.get(id)! - at, arrived: true } : { ms: ended - at, arrived: false }))
      .sort((x, y) => x.ms - y.ms);
    // The warm-up post is B's too; leave its delivery and its attempt out of B's figures.
    const bQueued = bRow.queued - 1;
    const bArrived = [...committed.keys()].filter((id) => arrivals.has(id)).length;
    const bArrivedWhilePosting = [...committed.keys()].filter((id) => arrivals.has(id) && arrivals.get(id)! <= postingEnded).length;
    const runSeconds = (ended - started) / 1000;
    const inPosting = accepted.filter((t) => t >= started && t < postingEnded).length;
    const aConnectionsPerSecond = accepted.length / runSeconds;
    const aAttemptsPerSecond = aRow.attempts / runSeconds;
    const p99 = waitPercentile(waits, 99);
    const met = committed.size === bPosts && bArrived === committed.size && pct(waits, 99).ms <= TARGET_P99_MS;

    log(`posts created:        A ${aPosts}, B ${bPosts} in ${seconds(postingEnded - started)}${failures.length ? `; ${failures.length} creates or re-enables FAILED, first: ${String(failures[0])}` : ''}`);
    log(
      `B deliveries:         ${committed.size} committed, ${bQueued} queued, ${bArrived} arrived ` +
        `(${bArrivedWhilePosting} by the time posting stopped, the rest in the ${seconds(ended - postingEnded)} after), ${bRow.attempts - 1} attempts recorded so far`,
    );
    log(`B commit-to-arrival:  p50 ${waitPercentile(waits, 50)}  p99 ${p99}  max ${waitPercentile(waits, 100)}  (≥: not arrived, waited at least this long)`);
    log(
      `A attempts:           ${aConnectionsPerSecond.toFixed(1)} connections/s accepted by the silent server ` +
        `(${(inPosting / ((postingEnded - started) / 1000)).toFixed(1)}/s while posting; ${accepted.length} in all, ${open} still held), ` +
        `${aAttemptsPerSecond.toFixed(1)} attempts/s recorded (${aRow.attempts} rows)`,
    );
    log(
      `A deliveries at end:  ${aRow.pending} pending (backlog), ${aRow.delivered} delivered, ${aRow.failed} failed, ${aRow.cancelled} cancelled; ` +
        `${aPosts * A_ENDPOINTS} expected from ${aPosts} posts; ${aRow.disabled} of ${A_ENDPOINTS} endpoints disabled` +
        (REENABLE ? ` (${reenabled} re-enables while posting)` : ''),
    );
    log(
      `verdict (${mode}): B ${bArrived}/${committed.size} arrived, p99 ${p99} against every one arriving and p99 ≤ ${seconds(TARGET_P99_MS)}: ` +
        `${met ? 'MET' : 'MISSED'}; A at ${aConnectionsPerSecond.toFixed(1)} connections/s`,
    );
    return {
      mode,
      bQueued,
      bArrived,
      p50: waitPercentile(waits, 50),
      p99,
      max: waitPercentile(waits, 100),
      aConnectionsPerSecond,
      aAttemptsPerSecond,
      aPending: aRow.pending,
      met,
    };
  } finally {
    // The silent server first: the sends it holds then fail at once, so shutdowns do not wait 10 s.
    await silent.stop();
    await Promise.all(workers.map((w) => stopProcess(w)));
    await closeApi(app);
    await receiver.stop();
    await database.drop();
  }
}

async function main() {
  MODES.forEach(workersOf); // a misspelt mode fails before anything starts
  const results: Result[] = [];
  for (const mode of MODES) results.push(await runMode(mode));
  log('');
  log('summary: mode | B arrived | B p50 / p99 / max | A connections/s, attempts/s | A pending at end | targets');
  for (const r of results) {
    log(
      `  ${r.mode} | ${r.bArrived}/${r.bQueued} | ${r.p50} / ${r.p99} / ${r.max} | ` +
        `${r.aConnectionsPerSecond.toFixed(1)}, ${r.aAttemptsPerSecond.toFixed(1)} | ${r.aPending} | ${r.met ? 'met' : 'missed'}`,
    );
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
