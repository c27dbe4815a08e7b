"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const node_child_process_1 = require("node:child_process");
const node_crypto_1 = require("node:crypto");
const node_fs_1 = require("node:fs");
const node_os_1 = require("node:os");
const node_path_1 = require("node:path");
const pg_1 = require("pg");
const processes_1 = require("../support/processes");
const support_1 = require("./support");
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DB_NAME = 'chorus_bench_floor';
const POSTS = Number(process.env.BENCH_POSTS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WINDOW_MS = '100';
const hasWrk = (() => {
    try {
        (0, node_child_process_1.execFileSync)('wrk', ['--version'], { stdio: 'ignore' });
        return true;
    }
    catch (error) {
        return error.status === 1;
    }
})();
const GENERATOR = process.env.BENCH_GENERATOR ?? (hasWrk ? 'wrk' : 'autocannon');
const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const peakRssMb = (pid) => Number(/VmHWM:\s+(\d+) kB/.exec((0, node_fs_1.readFileSync)(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
async function waitFor(url, child) {
    for (let i = 0; i < 600; i++) {
        if (child.exitCode !== null)
            throw new Error(`${url}: the process exited with ${child.exitCode}`);
        const ok = await fetch(url).then((r) => r.ok, () => false);
        if (ok)
            return;
        await (0, support_1.sleep)(100);
    }
    throw new Error(`${url} did not answer within 60 s`);
}
function runWrk(baseUrl, key, load, seconds) {
    const script = (0, node_path_1.join)((0, node_os_1.tmpdir)(), `chorus-floor-${process.pid}.lua`);
    (0, node_fs_1.writeFileSync)(script, `wrk.method = "${load.method}"
wrk.headers["Authorization"] = "Bearer ${key}"
${load.body ? `wrk.headers["Content-Type"] = "application/json"\nwrk.body = '${load.body}'` : ''}
local non2xx = 0
function response(status, headers, body) if status < 200 or status > 299 then non2xx = non2xx + 1 end end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d %d %d\\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99), summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
`);
    const out = (0, node_child_process_1.execFileSync)('wrk', ['-t2', `-c${CONNECTIONS}`, `-d${seconds}s`, '-s', script, `${baseUrl}${load.path}`], {
        encoding: 'utf8',
    });
    const [requests, durationUs, p50, p99, errors] = /RESULT (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(out).slice(1).map(Number);
    return { rps: requests / (durationUs / 1e6), p50: p50 / 1000, p99: p99 / 1000, non2xx: errors };
}
async function runAutocannon(baseUrl, key, load, seconds) {
    const autocannon = require('autocannon');
    const result = await autocannon({
        url: `${baseUrl}${load.path}`,
        method: load.method,
        connections: CONNECTIONS,
        duration: seconds,
        headers: { Authorization: `Bearer ${key}`, ...(load.body ? { 'Content-Type': 'application/json' } : {}) },
        body: load.body,
    });
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx + result.errors };
}
const run = (baseUrl, key, load, seconds) => GENERATOR === 'wrk' ? Promise.resolve(runWrk(baseUrl, key, load, seconds)) : runAutocannon(baseUrl, key, load, seconds);
async function seed(dbUrl) {
    const db = new pg_1.Client({ connectionString: dbUrl });
    await db.connect();
    const key = `chorus_key_${(0, node_crypto_1.randomBytes)(30).toString('base64url').replace(/[-_]/g, 'x').slice(0, 40)}`;
    const [{ id: ws }] = (await db.query(`INSERT INTO workspaces (slug, name, plan) VALUES ('bench', 'Bench', 'business') RETURNING id`)).rows;
    const [{ id: member }] = (await db.query(`INSERT INTO people (workspace_id, kind, name, email) VALUES ($1, 'member', 'Olive Owner', 'owner@bench.example') RETURNING id`, [ws])).rows;
    await db.query(`INSERT INTO people (workspace_id, kind, name, email) SELECT $1, 'user', 'User ' || i, 'user' || i || '@bench.example' FROM generate_series(1, 200) i`, [ws]);
    await db.query(`INSERT INTO boards (workspace_id, slug, name) VALUES ($1, 'ideas', 'Ideas'), ($1, 'bugs', 'Bugs')`, [ws]);
    await db.query(`INSERT INTO api_keys (workspace_id, key_hash, key_prefix, created_by) VALUES ($1, $2, $3, $4)`, [ws, (0, node_crypto_1.createHash)('sha256').update(key).digest('hex'), key.slice(0, 15), member]);
    await db.query(`INSERT INTO posts (workspace_id, board_id, title, body, votes, author_id, created_at, updated_at)
     SELECT $1, (SELECT id FROM boards WHERE workspace_id = $1 AND slug = CASE WHEN g % 3 = 0 THEN 'bugs' ELSE 'ideas' END),
            'Post number ' || g || ' about exports', 'Please let us export the dashboard ' || g || ' as CSV every week.',
            1 + g % 17, (SELECT id FROM people WHERE workspace_id = $1 ORDER BY id OFFSET g % 201 LIMIT 1),
            now() - (($2 - g) * interval '10 minutes'), now() - (($2 - g) * interval '10 minutes')
       FROM generate_series(1, $2::int) g`, [ws, POSTS]);
    await db.query(`INSERT INTO votes (workspace_id, post_id, person_id) SELECT workspace_id, id, author_id FROM posts WHERE workspace_id = $1`, [ws]);
    await db.query(`VACUUM ANALYZE`);
    await db.end();
    return key;
}
async function main() {
    const database = await (0, support_1.freshDatabase)(DB_NAME);
    const dbUrl = database.url;
    const children = [];
    const stopAll = () => children.forEach((child) => child.exitCode === null && child.kill('SIGTERM'));
    process.on('exit', stopAll);
    try {
        const chorusPort = await (0, processes_1.freePort)();
        const chorus = (0, node_child_process_1.spawn)(process.execPath, [...(process.env.CHORUS_NODE_OPTIONS ?? '').split(' ').filter(Boolean), (0, node_path_1.join)(__dirname, '../../src/main.js')], {
            env: {
                ...process.env,
                PORT: String(chorusPort),
                DATABASE_URL: dbUrl,
                REDIS_URL,
                ENCRYPTION_KEY: (0, node_crypto_1.randomBytes)(32).toString('hex'),
                BASE_URL: 'https://chorus.bench',
                RUN_WORKER: 'false',
                RATE_LIMIT_WINDOW_MS: WINDOW_MS,
            },
            stdio: ['ignore', 'ignore', 'inherit'],
        });
        children.push(chorus);
        const chorusUrl = `http://127.0.0.1:${chorusPort}`;
        await waitFor(`${chorusUrl}/healthz`, chorus);
        const started = Date.now();
        const key = await seed(dbUrl);
        (0, support_1.log)(`seeded ${POSTS} posts in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        const floor = (0, node_child_process_1.spawn)(process.execPath, [(0, node_path_1.join)(__dirname, 'floor-server.js')], {
            env: { ...process.env, FLOOR_DATABASE_URL: dbUrl, FLOOR_REDIS_URL: REDIS_URL, FLOOR_WINDOW_MS: WINDOW_MS },
            stdio: ['ignore', 'pipe', 'inherit'],
        });
        children.push(floor);
        const floorPort = await new Promise((resolve, reject) => {
            floor.stdout.once('data', (chunk) => resolve(JSON.parse(chunk.toString()).port));
            floor.once('exit', (code) => reject(new Error(`the floor server exited with ${code}`)));
        });
        const floorUrl = `http://127.0.0.1:${floorPort}`;
        const loads = {
            list: { method: 'GET', path: '/api/v1/posts?limit=25' },
            create: {
                method: 'POST',
                path: '/api/v1/posts',
                body: JSON.stringify({ board: 'ideas', title: 'Export the roadmap as PDF', body: 'So that we can share it offline.' }),
            },
        };
        const targets = { chorus: chorusUrl, floor: floorUrl };
        (0, support_1.log)(`generator: ${GENERATOR}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per server and route`);
        for (const url of Object.values(targets))
            for (const load of Object.values(loads))
                await run(url, key, load, 2);
        const runs = [];
        for (let round = 1; round <= ROUNDS; round++) {
            const order = round % 2 ? ['chorus', 'floor'] : ['floor', 'chorus'];
            for (const [route, load] of Object.entries(loads)) {
                for (const server of order) {
                    const result = await run(targets[server], key, load, SECONDS);
                    runs.push({ round, route, server, run: result });
                    (0, support_1.log)(`round ${round} ${route.padEnd(6)} ${server.padEnd(6)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms${result.non2xx ? `  !! ${result.non2xx} errors or non-2xx` : ''}`);
                }
            }
        }
        const summary = Object.keys(loads).map((route) => {
            const of = (server) => runs.filter((r) => r.route === route && r.server === server).map((r) => r.run);
            const [c, f] = [of('chorus'), of('floor')];
            const rounds = c.map((_, i) => ({ rps: c[i].rps / f[i].rps, p99: c[i].p99 / f[i].p99 }));
            return {
                route,
                'chorus req/s': Math.round(median(c.map((r) => r.rps))),
                'chorus p50 ms': +median(c.map((r) => r.p50)).toFixed(1),
                'chorus p99 ms': +median(c.map((r) => r.p99)).toFixed(1),
                'floor req/s': Math.round(median(f.map((r) => r.rps))),
                'floor p50 ms': +median(f.map((r) => r.p50)).toFixed(1),
                'floor p99 ms': +median(f.map((r) => r.p99)).toFixed(1),
                'req/s ratio': +median(rounds.map((r) => r.rps)).toFixed(2),
                'p99 ratio': +median(rounds.map((r) => r.p99)).toFixed(2),
                errors: [...c, ...f].reduce((n, r) => n + r.non2xx, 0),
            };
        });
        (0, support_1.log)(`\nMedians over ${ROUNDS} rounds (ratios: median of the per-round ratios, Chorus / floor)`);
        console.table(summary);
        (0, support_1.log)(`Chorus peak RSS: ${peakRssMb(chorus.pid).toFixed(0)} MB (floor: ${peakRssMb(floor.pid).toFixed(0)} MB)`);
    }
    finally {
        const exited = children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve))));
        stopAll();
        await Promise.race([Promise.all(exited), (0, support_1.sleep)(20_000)]);
        await database.drop().catch(() => { });
    }
}
main().then(() => process.exit(0), (error) => {
    console.error(error);
    process.exit(1);
});
//# sourceMappingURL=floor.bench.js.map