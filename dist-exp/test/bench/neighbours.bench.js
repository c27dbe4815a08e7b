"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const typeorm_1 = require("typeorm");
const posts_service_1 = require("../../src/posts/posts.service");
const endpoints_service_1 = require("../../src/webhooks/endpoints.service");
const support_1 = require("./support");
const DB_NAME = 'chorus_bench_neighbours';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const MODES = (process.env.BENCH_MODES ?? (process.env.BENCH_WORKERS ? workersMode(Number(process.env.BENCH_WORKERS)) : 'inline,workers3'))
    .split(',')
    .map((mode) => mode.trim())
    .filter(Boolean);
const A_ENDPOINTS = 25;
const A_POST_EVERY_MS = 250;
const B_POST_EVERY_MS = 2_000;
const DRAIN_MS = 30_000;
const TARGET_P99_MS = 2_000;
const REENABLE = process.env.BENCH_REENABLE === 'true';
const REENABLE_EVERY_MS = 2_000;
function workersMode(workers) {
    return workers > 0 ? `workers${workers}` : 'inline';
}
function workersOf(mode) {
    if (mode === 'inline')
        return 0;
    const match = /^workers([1-9][0-9]?)$/.exec(mode);
    if (!match)
        throw new Error(`BENCH_MODES: '${mode}' is neither 'inline' nor 'workersN'`);
    return Number(match[1]);
}
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
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
function waitPercentile(waits, p) {
    if (waits.length === 0)
        return 'n/a';
    const at = (0, support_1.pct)(waits, p);
    return `${at.arrived ? '' : '≥'}${seconds(at.ms)}`;
}
async function runMode(mode) {
    const workerCount = workersOf(mode);
    const database = await (0, support_1.freshDatabase)(DB_NAME);
    const receiver = await (0, support_1.startReceiver)();
    const silent = await (0, support_1.startHelper)(SILENT_SERVER);
    const env = (0, support_1.benchEnv)(database.url);
    const app = await (0, support_1.startApi)(env, workerCount === 0, 'error');
    const workers = [];
    try {
        const endpoints = app.get(endpoints_service_1.EndpointsService);
        const a = await (0, support_1.seedWorkspace)(app, 'tenant-a', 'business');
        for (let i = 0; i < A_ENDPOINTS; i++) {
            await endpoints.create({ workspaceId: a.workspaceId, plan: 'business' }, { url: `http://127.0.0.1:${silent.port}/hooks/${i}`, events: ['post.created'] });
        }
        const b = await (0, support_1.seedWorkspace)(app, 'tenant-b', 'pro');
        await endpoints.create({ workspaceId: b.workspaceId, plan: 'pro' }, { url: receiver.url, events: ['post.created'] });
        workers.push(...(await Promise.all(Array.from({ length: workerCount }, () => (0, support_1.startWorker)(env)))));
        (0, support_1.log)('');
        (0, support_1.log)(`== ${mode}: ${workerCount === 0 ? 'one processor in the API process' : `${workerCount} worker processes, none in the API process`}; ` +
            `${SECONDS} s of posting; A ${REENABLE ? 're-enables' : 'leaves'} its disabled endpoints; database ${DB_NAME}`);
        const posts = app.get(posts_service_1.PostsService);
        const post = (actor, title) => posts.create(actor, { board: 'ideas', title, body: 'A post of the neighbours bench.' });
        await post(b, 'Warm-up');
        if (!(await (0, support_1.waitFor)(async () => (await receiver.count()) >= 1, 30_000)))
            throw new Error('the warm-up delivery to B did not arrive within 30 s');
        receiver.reset();
        const committed = new Map();
        const failures = [];
        const creates = [];
        const create = (actor, title, onCommit) => creates.push(post(actor, title).then((p) => onCommit?.(p.id), (error) => void failures.push(error)));
        const started = Date.now();
        const stopAt = started + SECONDS * 1000;
        let aPosts = 0;
        let bPosts = 0;
        let reenabled = 0;
        const reenable = async () => {
            for (const endpoint of await endpoints.list(a.workspaceId)) {
                if (endpoint.enabled)
                    continue;
                await endpoints.update(a.workspaceId, endpoint.id, { enabled: true });
                reenabled++;
            }
        };
        const reenabling = REENABLE ? setInterval(() => creates.push(reenable().catch((error) => void failures.push(error))), REENABLE_EVERY_MS) : undefined;
        for (;;) {
            const nextA = started + aPosts * A_POST_EVERY_MS;
            const nextB = started + bPosts * B_POST_EVERY_MS;
            const next = Math.min(nextA, nextB);
            if (next >= stopAt)
                break;
            await (0, support_1.sleep)(next - Date.now());
            if (nextA <= Date.now())
                create(a, `A ${aPosts++}`);
            if (nextB <= Date.now())
                create(b, `B ${bPosts++}`, (id) => committed.set(id, Date.now()));
        }
        clearInterval(reenabling);
        await Promise.all(creates);
        const postingEnded = Date.now();
        const allArrived = async () => {
            const first = (0, support_1.firstArrivals)(await receiver.report());
            return [...committed.keys()].every((id) => first.has(id));
        };
        await (0, support_1.waitFor)(allArrived, Math.max(0, postingEnded + DRAIN_MS - Date.now()));
        const ended = Date.now();
        const arrivals = (0, support_1.firstArrivals)(await receiver.report());
        const { times: accepted, open } = await silent.ask('report', 'accepted');
        const db = app.get(typeorm_1.DataSource);
        const [aRow] = await db.query(`SELECT (SELECT count(*)::int FROM delivery_attempts WHERE workspace_id = $1) AS attempts,
              (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = $1 AND status = 'pending') AS pending,
              (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = $1 AND status = 'delivered') AS delivered,
              (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = $1 AND status = 'failed') AS failed,
              (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = $1 AND status = 'cancelled') AS cancelled,
              (SELECT count(*)::int FROM webhook_endpoints WHERE workspace_id = $1 AND NOT enabled) AS disabled`, [a.workspaceId]);
        const [bRow] = await db.query(`SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = $1) AS queued,
              (SELECT count(*)::int FROM delivery_attempts WHERE workspace_id = $1) AS attempts`, [b.workspaceId]);
        const waits = [...committed]
            .map(([id, at]) => (arrivals.has(id) ? { ms: arrivals.get(id) - at, arrived: true } : { ms: ended - at, arrived: false }))
            .sort((x, y) => x.ms - y.ms);
        const bQueued = bRow.queued - 1;
        const bArrived = [...committed.keys()].filter((id) => arrivals.has(id)).length;
        const bArrivedWhilePosting = [...committed.keys()].filter((id) => arrivals.has(id) && arrivals.get(id) <= postingEnded).length;
        const runSeconds = (ended - started) / 1000;
        const inPosting = accepted.filter((t) => t >= started && t < postingEnded).length;
        const aConnectionsPerSecond = accepted.length / runSeconds;
        const aAttemptsPerSecond = aRow.attempts / runSeconds;
        const p99 = waitPercentile(waits, 99);
        const met = committed.size === bPosts && bArrived === committed.size && (0, support_1.pct)(waits, 99).ms <= TARGET_P99_MS;
        (0, support_1.log)(`posts created:        A ${aPosts}, B ${bPosts} in ${seconds(postingEnded - started)}${failures.length ? `; ${failures.length} creates or re-enables FAILED, first: ${String(failures[0])}` : ''}`);
        (0, support_1.log)(`B deliveries:         ${committed.size} committed, ${bQueued} queued, ${bArrived} arrived ` +
            `(${bArrivedWhilePosting} by the time posting stopped, the rest in the ${seconds(ended - postingEnded)} after), ${bRow.attempts - 1} attempts recorded so far`);
        (0, support_1.log)(`B commit-to-arrival:  p50 ${waitPercentile(waits, 50)}  p99 ${p99}  max ${waitPercentile(waits, 100)}  (≥: not arrived, waited at least this long)`);
        (0, support_1.log)(`A attempts:           ${aConnectionsPerSecond.toFixed(1)} connections/s accepted by the silent server ` +
            `(${(inPosting / ((postingEnded - started) / 1000)).toFixed(1)}/s while posting; ${accepted.length} in all, ${open} still held), ` +
            `${aAttemptsPerSecond.toFixed(1)} attempts/s recorded (${aRow.attempts} rows)`);
        (0, support_1.log)(`A deliveries at end:  ${aRow.pending} pending (backlog), ${aRow.delivered} delivered, ${aRow.failed} failed, ${aRow.cancelled} cancelled; ` +
            `${aPosts * A_ENDPOINTS} expected from ${aPosts} posts; ${aRow.disabled} of ${A_ENDPOINTS} endpoints disabled` +
            (REENABLE ? ` (${reenabled} re-enables while posting)` : ''));
        (0, support_1.log)(`verdict (${mode}): B ${bArrived}/${committed.size} arrived, p99 ${p99} against every one arriving and p99 ≤ ${seconds(TARGET_P99_MS)}: ` +
            `${met ? 'MET' : 'MISSED'}; A at ${aConnectionsPerSecond.toFixed(1)} connections/s`);
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
    }
    finally {
        await silent.stop();
        await Promise.all(workers.map((w) => (0, support_1.stopProcess)(w)));
        await (0, support_1.closeApi)(app);
        await receiver.stop();
        await database.drop();
    }
}
async function main() {
    MODES.forEach(workersOf);
    const results = [];
    for (const mode of MODES)
        results.push(await runMode(mode));
    (0, support_1.log)('');
    (0, support_1.log)('summary: mode | B arrived | B p50 / p99 / max | A connections/s, attempts/s | A pending at end | targets');
    for (const r of results) {
        (0, support_1.log)(`  ${r.mode} | ${r.bArrived}/${r.bQueued} | ${r.p50} / ${r.p99} / ${r.max} | ` +
            `${r.aConnectionsPerSecond.toFixed(1)}, ${r.aAttemptsPerSecond.toFixed(1)} | ${r.aPending} | ${r.met ? 'met' : 'missed'}`);
    }
}
main().then(() => process.exit(0), (error) => {
    console.error(error);
    process.exit(1);
});
//# sourceMappingURL=neighbours.bench.js.map