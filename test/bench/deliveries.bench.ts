/**
 * Webhook deliveries end to end: creates BENCH_EVENTS posts (default 2,000) through
 * PostsService.create, each committing a `post.created` event, and lets the outbox processor
 * deliver them to a local receiver. Prints deliveries per second (first commit to last arrival)
 * and the commit-to-arrival latency (p50/p95/p99/max).
 *
 * `npm run bench:deliveries`. Environment:
 * - BENCH_DATABASE_URL: the PostgreSQL server (default postgresql://postgres@127.0.0.1:5432/postgres);
 *   the bench works in a database `chorus_bench_deliveries`, dropped and created afresh.
 * - BENCH_EVENTS: events to push (default 2000).
 * - BENCH_WORKERS: 0 (default) runs the one processor inside the API process (RUN_WORKER=true);
 *   N ≥ 1 runs N worker processes (dist/src/worker.js) and none in the API process.
 * - BENCH_CONCURRENCY: posts created at once (default 16).
 * - BENCH_RATE=<posts per second>: posts created at that steady rate instead (one every 1/rate s,
 *   whether or not the ones before have committed), as events arrive in production; BENCH_EVENTS
 *   then defaults to 20 seconds' worth. The latency figures are the ones to read in this mode.
 * - BENCH_RECEIVER_DELAY_MS: how long the receiver waits before its 200 (default 0).
 * - BENCH_BACKLOG=true: the processors alone. All N events are committed first, with no processor
 *   running; then the worker processes start (BENCH_WORKERS, at least 1) and the bench prints the
 *   rate at which they drain the backlog (from all running to the last arrival); no latency.
 * - BENCH_KEEP=true keeps the database afterwards.
 * - BENCH_SENDER=node|axios: the worker processes send through today's WebhookSender (`node`) or
 *   the same sender over `HttpService` from `@nestjs/axios` (`axios`, test/bench/axios-sender.ts),
 *   both built by dist/test/bench/sender-worker.js; needs BENCH_WORKERS ≥ 1 (or BENCH_BACKLOG).
 *   `npm run bench:senders` runs the two in turn.
 *
 * The commit time of an event is taken right after create() resolves (just after COMMIT), in this
 * process; the arrival time when the receiver (a process of its own, same clock) has read the
 * whole request. The post's id, in the body's data.post.id, pairs them. The commit is stamped
 * when this (busy) process sees it, so a few latencies may come out slightly negative.
 */
import { Database } from '../../src/database/sql';
import type { ChildProcess } from 'node:child_process';
import { PostsService } from '../../src/posts/posts.service';
import { EndpointsService } from '../../src/webhooks/endpoints.service';
import {
  benchEnv,
  closeApi,
  firstArrivals,
  freshDatabase,
  log,
  pct,
  Receiver,
  seedWorkspace,
  sleep,
  startApi,
  startReceiver,
  startWorker,
  stopProcess,
  waitFor,
} from './support';

const DB_NAME = 'chorus_bench_deliveries';
const RATE = Number(process.env.BENCH_RATE ?? 0);
const N = Number(process.env.BENCH_EVENTS ?? (RATE > 0 ? RATE * 20 : 2_000));
const BACKLOG_WORKERS = Number(process.env.BENCH_WORKERS ?? 0);
const WORKERS = process.env.BENCH_BACKLOG === 'true' ? Math.max(1, BACKLOG_WORKERS) : BACKLOG_WORKERS;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const RECEIVER_DELAY_MS = Number(process.env.BENCH_RECEIVER_DELAY_MS ?? 0);
const BACKLOG = process.env.BENCH_BACKLOG === 'true';
const WARMUP = BACKLOG ? 0 : 50;
const SENDER = process.env.BENCH_SENDER;
if (SENDER && WORKERS === 0) throw new Error('BENCH_SENDER picks the sender of worker processes: set BENCH_WORKERS (≥ 1) or BENCH_BACKLOG=true');

async function waitForArrivals(receiver: Receiver, n: number, timeoutMs: number): Promise<void> {
  if (!(await waitFor(async () => (await receiver.count()) >= n, timeoutMs))) {
    throw new Error(`only ${await receiver.count()} of ${n} deliveries arrived in ${timeoutMs} ms`);
  }
}

async function main() {
  const database = await freshDatabase(DB_NAME);
  const receiver = await startReceiver(RECEIVER_DELAY_MS);
  const env = benchEnv(database.url);
  const app = await startApi(env, WORKERS === 0);
  const workers: ChildProcess[] = [];
  try {
    const actor = await seedWorkspace(app, 'bench', 'business');
    await app.get(EndpointsService).create({ workspaceId: actor.workspaceId, plan: 'business' }, { url: receiver.url, events: ['post.created'] });
    const startWorkers = async () => workers.push(...(await Promise.all(Array.from({ length: WORKERS }, () => startWorker(env)))));
    if (!BACKLOG) await startWorkers();
    log(
      `database ${DB_NAME}; processors: ${WORKERS === 0 ? '1, in the API process' : `${WORKERS} worker processes`}; ` +
        `${N} events, ${RATE > 0 ? `${RATE} created per second` : `${CONCURRENCY} created at once`}` +
        `${BACKLOG ? ' before any processor runs' : ''}; receiver answers after ${RECEIVER_DELAY_MS} ms` +
        `${SENDER ? `; sender: ${SENDER}` : ''}`,
    );

    const posts = app.get(PostsService);
    const create = async (i: number, committed: Map<number, number>) => {
      const post = await posts.create(actor, { board: 'ideas', title: `Benchmark event ${i}`, body: 'Delivered to a local receiver.' });
      committed.set(post.id, Date.now());
    };
    const push = async (count: number, committed: Map<number, number>) => {
      if (RATE > 0) {
        // Post i is created at i/RATE seconds, on time whatever the creates before it are doing.
        const begun = performance.now();
        const creates: Promise<void>[] = [];
        for (let i = 0; i < count; i++) {
          const wait = begun + (i * 1000) / RATE - performance.now();
          if (wait > 0) await sleep(wait);
          creates.push(create(i, committed));
        }
        await Promise.all(creates);
        return;
      }
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(CONCURRENCY, count) }, async () => {
          while (next < count) await create(next++, committed);
        }),
      );
    };

    // Warm-up: connections, JIT, first fan-out; not timed.
    if (WARMUP > 0) {
      await push(WARMUP, new Map());
      await waitForArrivals(receiver, WARMUP, 30_000);
      receiver.reset();
    }

    const committed = new Map<number, number>();
    const started = Date.now();
    await push(N, committed);
    const lastCommit = Date.now();
    let ready = 0;
    if (BACKLOG) {
      log(`${N} events committed; starting ${WORKERS} worker process(es)…`);
      await startWorkers();
      ready = Date.now();
    }
    await waitForArrivals(receiver, N, 120_000 + N * 20);
    await sleep(200); // late duplicates, if any
    const arrivals = await receiver.report();

    const firstArrival = firstArrivals(arrivals);
    const perDelivery = new Map<string, number>();
    for (const [, , delivery] of arrivals) perDelivery.set(delivery, (perDelivery.get(delivery) ?? 0) + 1);
    const missing = [...committed.keys()].filter((id) => !firstArrival.has(id));
    const duplicates = [...perDelivery.values()].filter((n) => n > 1).length;
    const latencies = [...committed].filter(([id]) => firstArrival.has(id)).map(([id, at]) => firstArrival.get(id)! - at).sort((a, b) => a - b);
    const firstCommit = Math.min(...committed.values());
    const lastArrival = Math.max(...arrivals.map((a) => a[1]));
    const [counts]: { attempts: number; undelivered: number }[] = await app.get(Database).rows(
      `SELECT (SELECT count(*)::int FROM delivery_attempts) AS attempts,
              (SELECT count(*)::int FROM webhook_deliveries WHERE status <> 'delivered') AS undelivered`,
    );

    const seconds = (lastArrival - firstCommit) / 1000;
    log('');
    if (BACKLOG) {
      const drain = (lastArrival - ready) / 1000;
      log(`deliveries arrived:      ${arrivals.length} (${firstArrival.size} events, ${duplicates} delivery ids more than once, ${missing.length} missing)`);
      log(`attempts recorded:       ${counts.attempts}; deliveries not 'delivered': ${counts.undelivered}`);
      log(`backlog drained at:      ${(firstArrival.size / drain).toFixed(0)} deliveries per second (all processors running to last arrival: ${drain.toFixed(2)} s)`);
      if (missing.length > 0 || duplicates > 0) process.exitCode = 1;
      return;
    }
    log(`events committed:        ${N} in ${((lastCommit - started) / 1000).toFixed(2)} s (${(N / ((lastCommit - started) / 1000)).toFixed(0)}/s)`);
    log(`deliveries arrived:      ${arrivals.length} (${firstArrival.size} events, ${duplicates} delivery ids more than once, ${missing.length} missing)`);
    log(`attempts recorded:       ${counts.attempts - WARMUP}; deliveries not 'delivered': ${counts.undelivered}`);
    log(`deliveries per second:   ${(firstArrival.size / seconds).toFixed(0)}  (first commit to last arrival: ${seconds.toFixed(2)} s)`);
    log(`drain after last commit: ${lastArrival - lastCommit} ms`);
    log(
      `commit-to-arrival (ms):  p50 ${pct(latencies, 50)}  p95 ${pct(latencies, 95)}  p99 ${pct(latencies, 99)}  ` +
        `max ${latencies[latencies.length - 1]}  (min ${latencies[0]}, mean ${(latencies.reduce((a, b) => a + b, 0) / latencies.length).toFixed(1)})`,
    );
    if (missing.length > 0 || duplicates > 0) process.exitCode = 1;
  } finally {
    await Promise.all(workers.map((w) => stopProcess(w)));
    await closeApi(app);
    await receiver.stop();
    await database.drop();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
