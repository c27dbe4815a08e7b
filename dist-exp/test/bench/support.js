"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.pct = exports.sleep = exports.log = exports.KEEP = exports.TIMEOUT_MS = exports.SERVER_URL = void 0;
exports.stopProcess = stopProcess;
exports.freshDatabase = freshDatabase;
exports.benchEnv = benchEnv;
exports.startApi = startApi;
exports.closeApi = closeApi;
exports.startWorker = startWorker;
exports.startHelper = startHelper;
exports.startReceiver = startReceiver;
exports.waitFor = waitFor;
exports.firstArrivals = firstArrivals;
exports.seedWorkspace = seedWorkspace;
const node_child_process_1 = require("node:child_process");
const node_crypto_1 = require("node:crypto");
const node_path_1 = require("node:path");
const pg_1 = require("pg");
const app_1 = require("../../src/app");
const boards_service_1 = require("../../src/boards/boards.service");
const app_config_1 = require("../../src/config/app-config");
const workspaces_service_1 = require("../../src/workspaces/workspaces.service");
exports.SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
exports.TIMEOUT_MS = 10_000;
exports.KEEP = process.env.BENCH_KEEP === 'true';
const log = (...args) => console.log(...args);
exports.log = log;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
exports.sleep = sleep;
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
exports.pct = pct;
const children = new Set();
process.on('exit', () => children.forEach((child) => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
for (const signal of ['SIGINT', 'SIGTERM'])
    process.once(signal, () => process.exit(130));
function track(child) {
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
}
function stopProcess(child, graceMs = 15_000) {
    if (child.exitCode !== null || child.signalCode !== null)
        return Promise.resolve();
    return new Promise((resolve) => {
        const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
        child.once('exit', () => {
            clearTimeout(kill);
            resolve();
        });
        child.kill('SIGTERM');
    });
}
async function freshDatabase(name) {
    const admin = new pg_1.Client({ connectionString: exports.SERVER_URL });
    await admin.connect();
    try {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${name}`);
    }
    finally {
        await admin.end();
    }
    const drop = async () => {
        if (exports.KEEP)
            return;
        const client = new pg_1.Client({ connectionString: exports.SERVER_URL });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => client.end());
    };
    return { url: Object.assign(new URL(exports.SERVER_URL), { pathname: `/${name}` }).toString(), drop };
}
function benchEnv(databaseUrl) {
    return {
        DATABASE_URL: databaseUrl,
        BASE_URL: 'https://chorus.bench',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_TIMEOUT_MS: String(exports.TIMEOUT_MS),
        ENCRYPTION_KEY: (0, node_crypto_1.randomBytes)(32).toString('hex'),
        ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('OUTBOX_'))),
    };
}
async function startApi(env, runWorker, logLevel = 'warn') {
    const config = (0, app_config_1.loadConfig)({ ...env, RUN_WORKER: String(runWorker), LOG_LEVEL: logLevel });
    const app = await (0, app_1.createApp)(config, { url: env.DATABASE_URL, embedded: false, close: async () => { } });
    await app.init();
    return app;
}
async function closeApi(app, ms = 20_000) {
    let timer;
    await Promise.race([app.close(), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
}
function startWorker(env) {
    const child = track((0, node_child_process_1.spawn)(process.execPath, [(0, node_path_1.join)(__dirname, '..', '..', 'src', 'worker.js')], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
    }));
    let output = '';
    return new Promise((resolve, reject) => {
        const seen = (chunk) => {
            output = (output + chunk).slice(-8_192);
            if (output.includes('Outbox processor running'))
                resolve(child);
        };
        child.stdout.on('data', seen);
        child.stderr.on('data', seen);
        child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
    });
}
async function startHelper(script, args = []) {
    const child = track((0, node_child_process_1.spawn)(process.execPath, ['-e', script, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
    const port = await new Promise((resolve, reject) => {
        child.once('exit', (code) => reject(new Error(`helper process exited with ${code}`)));
        child.once('message', (m) => resolve(m.port));
    });
    return {
        port,
        ask: (question, key) => new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`helper process did not answer '${question}'`)), 10_000);
            const on = (m) => {
                if (key in m) {
                    clearTimeout(timer);
                    child.off('message', on);
                    resolve(m[key]);
                }
            };
            child.on('message', on);
            child.send(question);
        }),
        send: (message) => child.send(message),
        stop: () => stopProcess(child, 2_000),
    };
}
const RECEIVER = `
const http = require('node:http');
const delayMs = Number(process.argv[1]);
const arrivals = [];
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const at = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    arrivals.push([Number(body.data.post.id), at, String(req.headers['chorus-delivery'])]);
    const answer = () => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
  req.on('error', () => {});
  res.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'count') process.send({ count: arrivals.length });
  if (m === 'report') process.send({ arrivals });
  if (m === 'reset') arrivals.length = 0;
});
process.on('disconnect', () => process.exit(0));
`;
async function startReceiver(delayMs = 0) {
    const helper = await startHelper(RECEIVER, [String(delayMs)]);
    return {
        url: `http://127.0.0.1:${helper.port}/hooks/chorus`,
        count: () => helper.ask('count', 'count'),
        report: () => helper.ask('report', 'arrivals'),
        reset: () => helper.send('reset'),
        stop: () => helper.stop(),
    };
}
async function waitFor(done, timeoutMs) {
    const started = Date.now();
    while (!(await done())) {
        if (Date.now() - started > timeoutMs)
            return false;
        await (0, exports.sleep)(20);
    }
    return true;
}
function firstArrivals(arrivals) {
    const first = new Map();
    for (const [postId, at] of arrivals)
        if (!first.has(postId))
            first.set(postId, at);
    return first;
}
async function seedWorkspace(app, slug, plan) {
    const workspaces = app.get(workspaces_service_1.WorkspacesService);
    const workspace = await workspaces.create({ name: slug, slug, plan });
    const member = await workspaces.addPerson(workspace.id, { kind: 'member', name: 'Olive Owner', email: `owner@${slug}.example` });
    await app.get(boards_service_1.BoardsService).create(slug, { slug: 'ideas', name: 'Ideas' });
    return { workspaceId: workspace.id, workspaceSlug: slug, personId: member.id };
}
//# sourceMappingURL=support.js.map