"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const typeorm_1 = require("typeorm");
const posts_service_1 = require("../../src/posts/posts.service");
const endpoints_service_1 = require("../../src/webhooks/endpoints.service");
const support_1 = require("./support");
const DB_NAME = 'chorus_bench_deliveries';
const N = Number(process.env.BENCH_EVENTS ?? 2_000);
const BACKLOG_WORKERS = Number(process.env.BENCH_WORKERS ?? 0);
const WORKERS = process.env.BENCH_BACKLOG === 'true' ? Math.max(1, BACKLOG_WORKERS) : BACKLOG_WORKERS;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const RECEIVER_DELAY_MS = Number(process.env.BENCH_RECEIVER_DELAY_MS ?? 0);
const BACKLOG = process.env.BENCH_BACKLOG === 'true';
const WARMUP = BACKLOG ? 0 : 50;
async function waitForArrivals(receiver, n, timeoutMs) {
    if (!(await (0, support_1.waitFor)(async () => (await receiver.count()) >= n, timeoutMs))) {
        throw new Error(`only ${await receiver.count()} of ${n} deliveries arrived in ${timeoutMs} ms`);
    }
}
async function main() {
    const database = await (0, support_1.freshDatabase)(DB_NAME);
    const receiver = await (0, support_1.startReceiver)(RECEIVER_DELAY_MS);
    const env = (0, support_1.benchEnv)(database.url);
    const app = await (0, support_1.startApi)(env, WORKERS === 0);
    const workers = [];
    try {
        const actor = await (0, support_1.seedWorkspace)(app, 'bench', 'business');
        await app.get(endpoints_service_1.EndpointsService).create({ workspaceId: actor.workspaceId, plan: 'business' }, { url: receiver.url, events: ['post.created'] });
        const startWorkers = async () => workers.push(...(await Promise.all(Array.from({ length: WORKERS }, () => (0, support_1.startWorker)(env)))));
        if (!BACKLOG)
            await startWorkers();
        (0, support_1.log)(`database ${DB_NAME}; processors: ${WORKERS === 0 ? '1, in the API process' : `${WORKERS} worker processes`}; ` +
            `${N} events, ${CONCURRENCY} created at once${BACKLOG ? ' before any processor runs' : ''}; ` +
            `receiver answers after ${RECEIVER_DELAY_MS} ms`);
        const posts = app.get(posts_service_1.PostsService);
        const push = async (count, committed) => {
            let next = 0;
            await Promise.all(Array.from({ length: Math.min(CONCURRENCY, count) }, async () => {
                while (next < count) {
                    const i = next++;
                    const post = await posts.create(actor, { board: 'ideas', title: `Benchmark event ${i}`, body: 'Delivered to a local receiver.' });
                    committed.set(post.id, Date.now());
                }
            }));
        };
        if (WARMUP > 0) {
            await push(WARMUP, new Map());
            await waitForArrivals(receiver, WARMUP, 30_000);
            receiver.reset();
        }
        const committed = new Map();
        const started = Date.now();
        await push(N, committed);
        const lastCommit = Date.now();
        let ready = 0;
        if (BACKLOG) {
            (0, support_1.log)(`${N} events committed; starting ${WORKERS} worker process(es)…`);
            await startWorkers();
            ready = Date.now();
        }
        await waitForArrivals(receiver, N, 120_000 + N * 20);
        await (0, support_1.sleep)(200);
        const arrivals = await receiver.report();
        const firstArrival = (0, support_1.firstArrivals)(arrivals);
        const perDelivery = new Map();
        for (const [, , delivery] of arrivals)
            perDelivery.set(delivery, (perDelivery.get(delivery) ?? 0) + 1);
        const missing = [...committed.keys()].filter((id) => !firstArrival.has(id));
        const duplicates = [...perDelivery.values()].filter((n) => n > 1).length;
        const latencies = [...committed].filter(([id]) => firstArrival.has(id)).map(([id, at]) => firstArrival.get(id) - at).sort((a, b) => a - b);
        const firstCommit = Math.min(...committed.values());
        const lastArrival = Math.max(...arrivals.map((a) => a[1]));
        const [counts] = await app.get(typeorm_1.DataSource).query(`SELECT (SELECT count(*)::int FROM delivery_attempts) AS attempts,
              (SELECT count(*)::int FROM webhook_deliveries WHERE status <> 'delivered') AS undelivered`);
        const seconds = (lastArrival - firstCommit) / 1000;
        (0, support_1.log)('');
        if (BACKLOG) {
            const drain = (lastArrival - ready) / 1000;
            (0, support_1.log)(`deliveries arrived:      ${arrivals.length} (${firstArrival.size} events, ${duplicates} delivery ids more than once, ${missing.length} missing)`);
            (0, support_1.log)(`attempts recorded:       ${counts.attempts}; deliveries not 'delivered': ${counts.undelivered}`);
            (0, support_1.log)(`backlog drained at:      ${(firstArrival.size / drain).toFixed(0)} deliveries per second (all processors running to last arrival: ${drain.toFixed(2)} s)`);
            if (missing.length > 0 || duplicates > 0)
                process.exitCode = 1;
            return;
        }
        (0, support_1.log)(`events committed:        ${N} in ${((lastCommit - started) / 1000).toFixed(2)} s (${(N / ((lastCommit - started) / 1000)).toFixed(0)}/s)`);
        (0, support_1.log)(`deliveries arrived:      ${arrivals.length} (${firstArrival.size} events, ${duplicates} delivery ids more than once, ${missing.length} missing)`);
        (0, support_1.log)(`attempts recorded:       ${counts.attempts - WARMUP}; deliveries not 'delivered': ${counts.undelivered}`);
        (0, support_1.log)(`deliveries per second:   ${(firstArrival.size / seconds).toFixed(0)}  (first commit to last arrival: ${seconds.toFixed(2)} s)`);
        (0, support_1.log)(`drain after last commit: ${lastArrival - lastCommit} ms`);
        (0, support_1.log)(`commit-to-arrival (ms):  p50 ${(0, support_1.pct)(latencies, 50)}  p95 ${(0, support_1.pct)(latencies, 95)}  p99 ${(0, support_1.pct)(latencies, 99)}  ` +
            `max ${latencies[latencies.length - 1]}  (min ${latencies[0]}, mean ${(latencies.reduce((a, b) => a + b, 0) / latencies.length).toFixed(1)})`);
        if (missing.length > 0 || duplicates > 0)
            process.exitCode = 1;
    }
    finally {
        await Promise.all(workers.map((w) => (0, support_1.stopProcess)(w)));
        await (0, support_1.closeApi)(app);
        await receiver.stop();
        await database.drop();
    }
}
main().then(() => process.exit(process.exitCode ?? 0), (error) => {
    console.error(error);
    process.exit(1);
});
//# sourceMappingURL=deliveries.bench.js.map