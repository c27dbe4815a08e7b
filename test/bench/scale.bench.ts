/**
 * `npm run bench:scale`: what grows with success, tried at size (issue 35). Prints figures; it
 * judges nothing. Parts, all by default, or those named in BENCH_PARTS (comma-separated):
 *
 * - `mail`: emails per second from the mailer to a local SMTP server (smtp-server in a process of
 *   its own, accepting everything), sending alone (no database, no outbox): before, one SMTP
 *   connection per email as Chorus sent until issue 35 (nodemailer's plain SMTP transport, as
 *   the Mailer made it); after, the pooled Mailer. Each at 4 in flight (one workspace's share,
 *   EMAIL_CONCURRENCY: one popular post's fan-out) and at 64 (16 workspaces at once, the default
 *   OUTBOX_CONCURRENCY). BENCH_EMAILS per run (default 4000), BENCH_ROUNDS rounds (default 3,
 *   alternating before and after; medians printed).
 *
 * - `redis`: the rate limits on a three-node Redis Cluster (redis-servers started here, torn down
 *   after) against one Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379): two built Chorus
 *   API processes (start:prod's flags) on a fresh database (`chorus_bench_scale`), loaded through
 *   both at once (GET /api/v1/boards, BENCH_CONNECTIONS (32) connections to each,
 *   BENCH_SECONDS (8) s, RATE_LIMIT_WINDOW_MS=10 so that the business plan admits the load);
 *   then, on the cluster with a one-minute window, each plan's limit through both instances
 *   alternately; then a node killed under load (16 clients for 12 s, the node killed at 3 s and
 *   started again at 8 s), with the answers by status and the slowest answer in each phase.
 *
 * - `voters`: a status change on a post with BENCH_VOTERS (100,000) voters, as an operator runs
 *   Chorus: the built API (start:prod's flags, RUN_WORKER=false) and one worker process
 *   (dist/src/worker.js) on a fresh database (`chorus_bench_voters`), SMTP_URL a local
 *   smtp-server in a process of its own that records each recipient, EMAIL_HOURLY_LIMIT raised.
 *   The voters (people and votes) are made by SQL. Per round (BENCH_VOTER_ROUNDS, 2): PATCHes
 *   of a one-voter post's status before (BENCH_PATCHES, 9), then the popular post's PATCH, then a
 *   one-voter PATCH every 500 ms while the fan-out runs, until every voter's email arrived;
 *   prints the PATCHes' medians, emails/s (from the PATCH's answer to the last arrival), the
 *   recipients (distinct, and any twice), and each process's RSS: idle (before the PATCH) and
 *   the highest sampled every 100 ms while the emails went out; then a verdict against issue
 *   35's targets. BENCH_BEFORE=<another build's dist/src/main.js> runs that build's worker in the
 *   same rounds, alternating.
 *
 * - `endpoints`: a backlog of BENCH_BACKLOG_DELIVERIES (20,000) webhook deliveries spread evenly
 *   over N endpoints in BENCH_ENDPOINT_WORKSPACES (10) business workspaces, made by SQL (with
 *   their queues in the claim's ready-queue, outbox_queues, as fan-out writes them), drained
 *   by one worker process into a local receiver, for each N of BENCH_ENDPOINT_SIZES (50, 1000,
 *   10000) in turn, BENCH_ENDPOINT_ROUNDS (3) rounds, the order alternating: deliveries/s from
 *   the worker's start to the last arrival, medians, each size's ratio to the first.
 *   BENCH_BEFORE=<another build's dist/src/main.js> drains each backlog with that build's worker
 *   too, right before or after this build's (the order alternating).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { Client } from 'pg';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { SecretBox } from '../../src/common/secret-box';
import { loadConfig } from '../../src/config/app-config';
import { Mailer } from '../../src/notifications/mailer';
import { urlContext } from '../../src/outbox/endpoint-targets';
import { RedisCluster } from '../support/redis-cluster';
import { CONNECTIONS, GENERATOR, median, peakRssMb, runLoad, startBuiltChorus } from './load';
import { benchEnv, closeApi, freshDatabase, Helper, log, pct, seedWorkspace, sleep, startApi, startHelper, startReceiver, startWorker, stopProcess, waitFor } from './support';

const PARTS = (process.env.BENCH_PARTS ?? 'mail,redis,voters,endpoints').split(',').map((part) => part.trim());
const EMAILS = Number(process.env.BENCH_EMAILS ?? 4_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

// ---------------------------------------------------------------------------------------------
// mail

/** An SMTP server that accepts every message, counting messages and connections. */
const SMTP_SINK = `
const { SMTPServer } = require('smtp-server');
let messages = 0, connections = 0;
const server = new SMTPServer({
  authOptional: true, disabledCommands: ['STARTTLS'], logger: false, maxClients: 1000, disableReverseLookup: true,
  onConnect: (session, callback) => { connections++; callback(); },
  onData: (stream, session, callback) => { stream.on('data', () => {}); stream.on('end', () => { messages++; callback(); }); },
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.server.address().port }));
process.on('message', (m) => {
  if (m === 'count') process.send({ count: { messages, connections } });
  if (m === 'reset') { messages = 0; connections = 0; }
});
process.on('disconnect', () => process.exit(0));
`;

/** A message the size of a voter email, with its unsubscribe headers. */
const mailTo = (i: number) => ({
  to: `Voter ${i} <voter${i}@example.test>`,
  subject: '“Dark mode for everyone” is now Done',
  text: `${'A post you voted for changed status: from In progress to Done.\n'.repeat(12)}\nhttps://boards.example.test/acme/ideas/42-dark-mode\n`,
  headers: {
    'List-Unsubscribe': `<https://chorus.example.test/email/unsubscribe/${'t'.repeat(120)}${i}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  },
});

type Send = (i: number, workspace: string) => Promise<unknown>;

/** Sends EMAILS messages, `inFlight` at a time spread over `inFlight / 4` workspaces; emails/s. */
async function sendAll(send: Send, inFlight: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, lane) => {
      for (let i = next++; i < EMAILS; i = next++) await send(i, `ws-${Math.floor(lane / 4)}`);
    }),
  );
  return EMAILS / ((performance.now() - started) / 1000);
}

async function mail(): Promise<void> {
  const sink: Helper = await startHelper(SMTP_SINK);
  const url = `smtp://127.0.0.1:${sink.port}`;
  try {
    // Before: what the Mailer made until issue 35, one connection (and greeting, and QUIT) per email.
    const single = nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 10_000 });
    const before: Send = (i) => single.sendMail({ from: 'Chorus <notifications@chorus.invalid>', ...mailTo(i) });
    const mailer = new Mailer(loadConfig({ SMTP_URL: url }));
    const after: Send = (i, workspace) => mailer.send(mailTo(i), workspace);

    const rates: Record<string, number[]> = {};
    const connections: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const inFlight of [4, 64]) {
        for (const [name, send] of [['before', before], ['after', after]] as const) {
          sink.send('reset');
          const rate = await sendAll(send, inFlight);
          const { messages, connections: opened } = await sink.ask<{ messages: number; connections: number }>('count', 'count');
          if (messages !== EMAILS) throw new Error(`${name}: the server accepted ${messages} of ${EMAILS}`);
          (rates[`${name} ${inFlight}`] ??= []).push(rate);
          connections[`${name} ${inFlight}`] = opened;
        }
      }
    }
    mailer.close();
    single.close();
    log(`\nmail: ${EMAILS} emails a run to smtp-server on 127.0.0.1 (its own process), sending alone; medians of ${ROUNDS} rounds`);
    for (const inFlight of [4, 64]) {
      const b = median(rates[`before ${inFlight}`]);
      const a = median(rates[`after ${inFlight}`]);
      log(
        `  ${String(inFlight).padStart(2)} in flight${inFlight === 4 ? ' (one workspace)   ' : ' (16 workspaces)   '}` +
          `before ${b.toFixed(0).padStart(5)} emails/s (${connections[`before ${inFlight}`]} connections)   ` +
          `after ${a.toFixed(0).padStart(5)} emails/s (${connections[`after ${inFlight}`]} connections)   ${(a / b).toFixed(1)}x`,
      );
    }
  } finally {
    await sink.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// redis

const MAIN_JS = join(__dirname, '..', '..', 'src', 'main.js');

async function twoInstances(env: Record<string, string>): Promise<{ urls: string[]; stop(): Promise<void> }> {
  const started: { child: ChildProcess; url: string }[] = [];
  for (let i = 0; i < 2; i++) started.push(await startBuiltChorus(MAIN_JS, { ...env, LOG_LEVEL: 'error' }));
  return { urls: started.map((s) => s.url), stop: () => Promise.all(started.map((s) => stopProcess(s.child, 5_000))).then(() => {}) };
}

async function redis(): Promise<void> {
  const database = await freshDatabase('chorus_bench_scale');
  const cluster = await RedisCluster.start({ nodes: 3, nodeTimeoutMs: 2_000 });
  const env = benchEnv(database.url);
  try {
    // Workspaces and keys, made by the app in this process (it also migrates the database).
    const app = await startApi(env, false);
    const keys: Record<'pro' | 'business', string[]> = { pro: [], business: [] };
    for (const [plan, count] of [['pro', 2], ['business', 12]] as const) {
      for (let i = 0; i < count; i++) {
        const slug = `${plan}-${i}`;
        await seedWorkspace(app, slug, plan);
        keys[plan].push((await app.get(ApiKeysService).create(slug, `owner@${slug}.example`)).key);
      }
    }
    await closeApi(app);

    log(`\nredis: two Chorus API processes, GET /api/v1/boards, ${CONNECTIONS} connections to each, ${SECONDS} s, ${GENERATOR}`);
    for (const [name, url] of [['one Redis', REDIS_URL], ['3-node cluster', cluster.url]] as const) {
      const chorus = await twoInstances({ ...env, REDIS_URL: url, RATE_LIMIT_WINDOW_MS: '10' });
      try {
        const load = (i: number) => ({ method: 'GET' as const, path: '/api/v1/boards', headers: { authorization: `Bearer ${keys.business[i]}` }, status: 200 });
        await Promise.all(chorus.urls.map((base, i) => runLoad(base, load(i), 2))); // warm-up
        const runs = await Promise.all(chorus.urls.map((base, i) => runLoad(base, load(i), SECONDS)));
        log(
          `  ${name.padEnd(15)} ${runs.reduce((sum, run) => sum + run.rps, 0).toFixed(0).padStart(5)} req/s  ` +
            `p50 ${runs.map((run) => run.p50.toFixed(1)).join('/')} ms  p99 ${runs.map((run) => run.p99.toFixed(1)).join('/')} ms  ` +
            `unexpected answers ${runs.reduce((sum, run) => sum + run.unexpected, 0)}`,
        );
      } finally {
        await chorus.stop();
      }
    }

    const chorus = await twoInstances({ ...env, REDIS_URL: cluster.url, RATE_LIMIT_WINDOW_MS: '60000' });
    try {
      log('  each plan through both instances in turn, on the cluster, one-minute window:');
      for (const [plan, key, limit] of [['pro', keys.pro[0], 60], ['business', keys.business[0], 300]] as const) {
        const statuses: number[] = [];
        for (let i = 0; i < limit + 10; i++) {
          const res = await fetch(`${chorus.urls[i % 2]}/api/v1/boards`, { headers: { authorization: `Bearer ${key}` } });
          await res.arrayBuffer();
          statuses.push(res.status);
        }
        const accepted = statuses.filter((status) => status === 200).length;
        log(`    ${plan.padEnd(8)} ${accepted} of ${limit + 10} accepted (limit ${limit})${accepted === limit ? ', exact' : ', NOT exact'}`);
      }
    } finally {
      await chorus.stop();
    }

    await nodeKilled(cluster, env, keys.business.slice(1));
  } finally {
    await cluster.stop();
    await database.drop();
  }
}

/** A node killed under load and started again: answers by status and the slowest one, per phase. */
async function nodeKilled(cluster: RedisCluster, env: Record<string, string>, keys: string[]): Promise<void> {
  const chorus = await twoInstances({ ...env, REDIS_URL: cluster.url, RATE_LIMIT_WINDOW_MS: '10' });
  const victim = cluster.nodes[0];
  type Phase = 'before' | 'down' | 'back';
  const seen: Record<Phase, { statuses: Record<string, number>; ms: number[] }> = {
    before: { statuses: {}, ms: [] },
    down: { statuses: {}, ms: [] },
    back: { statuses: {}, ms: [] },
  };
  let phase: Phase = 'before';
  let loading = true;
  try {
    const clients = Array.from({ length: 16 }, async (_, c) => {
      for (let i = c; loading; i += 16) {
        const at = phase;
        const started = performance.now();
        const status = await fetch(`${chorus.urls[i % 2]}/api/v1/boards`, { headers: { authorization: `Bearer ${keys[i % keys.length]}` } })
          .then(async (res) => (await res.arrayBuffer(), String(res.status)))
          .catch(() => 'no answer');
        seen[at].ms.push(performance.now() - started);
        seen[at].statuses[status] = (seen[at].statuses[status] ?? 0) + 1;
      }
    });
    await sleep(3_000);
    phase = 'down';
    await victim.kill();
    await sleep(5_000);
    await victim.start();
    await cluster.untilOk();
    phase = 'back';
    await sleep(4_000);
    loading = false;
    await Promise.all(clients);
  } finally {
    await chorus.stop();
  }
  log('  a node killed under load (16 clients, both instances; the cluster answers CLUSTERDOWN 2 s after the kill):');
  for (const [name, { statuses, ms }] of Object.entries(seen)) {
    const sorted = [...ms].sort((a, b) => a - b);
    const fivexx = Object.entries(statuses).filter(([status]) => status === 'no answer' || Number(status) >= 500).reduce((sum, [, n]) => sum + n, 0);
    log(
      `    ${name.padEnd(6)} ${String(ms.length).padStart(6)} answers ${JSON.stringify(statuses)}  5xx or none ${fivexx}  ` +
        `p99 ${pct(sorted, 99)?.toFixed(1)} ms  slowest ${sorted[sorted.length - 1]?.toFixed(1)} ms`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// voters

const VOTERS = Number(process.env.BENCH_VOTERS ?? 100_000);
const VOTER_ROUNDS = Number(process.env.BENCH_VOTER_ROUNDS ?? 2);
const PATCHES = Number(process.env.BENCH_PATCHES ?? 9);
const VOTER_DOMAIN = 'voters.example';

/**
 * An SMTP server that accepts every message and counts each VOTER_DOMAIN recipient's messages by
 * subject (one status change's emails share theirs): `count` answers for the subject with the
 * most recipients, and how many messages had another subject or went elsewhere.
 */
const RECIPIENT_SINK = `
const { SMTPServer } = require('smtp-server');
const domain = '@' + process.argv[1];
let bySubject = new Map(), others = 0, first = 0, last = 0;
const server = new SMTPServer({
  authOptional: true, disabledCommands: ['STARTTLS'], logger: false, maxClients: 1000, disableReverseLookup: true,
  onData: (stream, session, callback) => {
    let head = '';
    stream.on('data', (chunk) => { if (head.length < 4096) head += chunk.toString('latin1'); });
    stream.on('end', () => {
      const subject = (/^Subject: (.*(?:\\r\\n[ \\t].*)*)/m.exec(head) || [])[1] || '';
      for (const { address } of session.envelope.rcptTo) {
        if (!address.endsWith(domain)) { others++; continue; }
        const at = Date.now();
        if (first === 0) first = at;
        last = at;
        let seen = bySubject.get(subject);
        if (!seen) bySubject.set(subject, (seen = new Map()));
        seen.set(address, (seen.get(address) || 0) + 1);
      }
      callback();
    });
  },
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.server.address().port }));
process.on('message', (m) => {
  if (m === 'count') {
    let seen = new Map(), all = 0;
    for (const s of bySubject.values()) { if (s.size > seen.size) seen = s; for (const n of s.values()) all += n; }
    let twice = 0, messages = 0;
    for (const n of seen.values()) { messages += n; if (n > 1) twice++; }
    process.send({ count: { distinct: seen.size, messages, twice, others: others + all - messages, first, last } });
  }
  if (m === 'reset') { bySubject = new Map(); others = 0; first = 0; last = 0; }
});
process.on('disconnect', () => process.exit(0));
`;

interface SinkCount {
  distinct: number;
  messages: number;
  twice: number;
  others: number;
  first: number;
  last: number;
}

/** CPU time a process has used so far (user and system), in ms. */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (100 a second)
};

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

interface Round {
  before: number;
  popular: number;
  during: number;
  duringCount: number;
  seconds: number;
  sendSeconds: number;
  count: SinkCount;
  idle: Record<'api' | 'worker', number>;
  peak: Record<'api' | 'worker', number>;
  /** The worker's CPU time per email sent, in ms, from the PATCH to the last arrival. */
  workerCpuPerEmail: number;
}

/**
 * One status change of the popular post: PATCHES one-voter PATCHes before, each process's idle
 * RSS, the popular post's PATCH, then a one-voter PATCH every 500 ms (and RSS every 100 ms)
 * until every voter's email arrived, and 3 s more for any sent twice.
 */
async function voterRound(
  sink: Helper,
  pids: Record<'api' | 'worker', number>,
  patchSingle: () => Promise<number>,
  patchPopular: () => Promise<{ ms: number }>,
): Promise<Round> {
  sink.send('reset');
  const before: number[] = [];
  for (let i = 0; i < PATCHES; i++) {
    before.push(await patchSingle());
    await sleep(100);
  }
  // Idle: the RSS of each process over the second before the PATCH (median of 10 samples).
  const idleSamples: Record<'api' | 'worker', number[]> = { api: [], worker: [] };
  for (let i = 0; i < 10; i++) {
    idleSamples.api.push(rssMb(pids.api));
    idleSamples.worker.push(rssMb(pids.worker));
    await sleep(100);
  }
  const idle = { api: median(idleSamples.api), worker: median(idleSamples.worker) };
  const peak = { ...idle };
  const sampler = setInterval(() => {
    peak.api = Math.max(peak.api, rssMb(pids.api));
    peak.worker = Math.max(peak.worker, rssMb(pids.worker));
  }, 100);
  const cpuBefore = cpuMs(pids.worker);
  try {
    const patched = await patchPopular();
    const answeredAt = Date.now();
    const during: number[] = [];
    let count = await sink.ask<SinkCount>('count', 'count');
    const deadline = Date.now() + 30 * 60_000;
    while (count.distinct < VOTERS && Date.now() < deadline) {
      await sleep(500);
      during.push(await patchSingle());
      count = await sink.ask<SinkCount>('count', 'count');
    }
    const workerCpu = cpuMs(pids.worker) - cpuBefore;
    // Any email sent twice would come soon after: wait, then count again.
    await sleep(3_000);
    count = await sink.ask<SinkCount>('count', 'count');
    return {
      before: median(before),
      popular: patched.ms,
      during: median(during),
      duringCount: during.length,
      seconds: (count.last - answeredAt) / 1000,
      sendSeconds: (count.last - count.first) / 1000,
      count,
      idle,
      peak,
      workerCpuPerEmail: workerCpu / count.distinct,
    };
  } finally {
    clearInterval(sampler);
  }
}

async function voters(): Promise<void> {
  const database = await freshDatabase('chorus_bench_voters');
  const sink = await startHelper(RECIPIENT_SINK, [VOTER_DOMAIN]);
  const env = {
    ...benchEnv(database.url),
    SMTP_URL: `smtp://127.0.0.1:${sink.port}`,
    EMAIL_HOURLY_LIMIT: String(10 * VOTERS),
    RATE_LIMIT_WINDOW_MS: '10',
  };
  const processes: ChildProcess[] = [];
  try {
    // The workspace, its key and two posts, made by the app in this process (it migrates the database).
    const app = await startApi(env, false);
    const actor = await seedWorkspace(app, 'popular', 'business');
    const { key } = await app.get(ApiKeysService).create('popular', 'owner@popular.example');
    await closeApi(app);

    const api = await startBuiltChorus(MAIN_JS, { ...env, RUN_WORKER: 'false' });
    processes.push(api.child);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body: unknown) => {
      const started = performance.now();
      const res = await fetch(`${api.url}${path}`, { method, headers, body: JSON.stringify(body) });
      const answer = (await res.json()) as { data: { id: number } };
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(answer)}`);
      return { ms: performance.now() - started, id: answer.data.id };
    };
    const newPost = (title: string) => call('POST', '/api/v1/posts', { board: 'ideas', title, author: { name: 'Nomail Author' } }).then((r) => r.id);
    const popular = await newPost('Dark mode for everyone');
    const single = await newPost('A post one person voted for');

    const seedStarted = performance.now();
    const db = new Client({ connectionString: database.url });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO people (workspace_id, kind, name, email)
         SELECT $1, 'guest', 'Voter ' || i, 'voter' || lpad(i::text, 6, '0') || '@${VOTER_DOMAIN}' FROM generate_series(1, $2::integer) i`,
        [actor.workspaceId, VOTERS],
      );
      await db.query(
        `INSERT INTO votes (workspace_id, post_id, person_id)
         SELECT workspace_id, $2, id FROM people WHERE workspace_id = $1 AND email LIKE '%@${VOTER_DOMAIN}'`,
        [actor.workspaceId, popular],
      );
      const [{ id: one }] = (
        await db.query(`INSERT INTO people (workspace_id, kind, name, email) VALUES ($1, 'guest', 'Only Voter', 'only@one.example') RETURNING id`, [
          actor.workspaceId,
        ])
      ).rows;
      await db.query(`INSERT INTO votes (workspace_id, post_id, person_id) VALUES ($1, $2, $3)`, [actor.workspaceId, single, one]);
      await db.query(`UPDATE posts SET votes = (SELECT count(*) FROM votes v WHERE v.workspace_id = $1 AND v.post_id = posts.id) WHERE workspace_id = $1`, [
        actor.workspaceId,
      ]);
      await db.query('VACUUM ANALYZE people');
      await db.query('VACUUM ANALYZE votes');
    } finally {
      await db.end();
    }
    log(`\nvoters: ${VOTERS} voters made by SQL in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

    const statuses = ['planned', 'in_progress', 'done', 'closed', 'open'];
    let singleTurn = 0;
    const patchSingle = () => call('PATCH', `/api/v1/posts/${single}`, { status: singleTurn++ % 2 === 0 ? 'planned' : 'open' }).then((r) => r.ms);

    // The worker of this build, and with BENCH_BEFORE (another build's dist/src/main.js) that
    // build's worker in the same rounds, the order alternating.
    const builds: [string, string | undefined][] = [['this build', undefined]];
    if (process.env.BENCH_BEFORE) builds.unshift(['before', join(process.env.BENCH_BEFORE, '..', 'worker.js')]);
    const results = new Map<string, Round[]>(builds.map(([name]) => [name, []]));
    let changes = 0;
    // Each round's emails count against the month's and the hour's quotas: they start afresh.
    const resetUsage = async () => {
      const client = new Client({ connectionString: database.url });
      await client.connect();
      await client.query('UPDATE delivery_usage SET attempts = 0; UPDATE email_usage SET sent = 0').finally(() => client.end());
    };
    // A round ends once every delivery is recorded, so that none is left to the next round's worker.
    const pending = async () => {
      const client = new Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`).finally(() => client.end());
      return rows[0].n as number;
    };
    for (let round = 0; round < VOTER_ROUNDS; round++) {
      for (const [name, workerJs] of round % 2 === 0 ? builds : [...builds].reverse()) {
        await resetUsage();
        const worker = await startWorker(env, workerJs);
        const pids = { api: api.child.pid!, worker: worker.pid! };
        try {
          // Warm: the one-voter post's PATCH and its email.
          for (let i = 0; i < 5; i++) await patchSingle();
          await sleep(2_000);
          const r = await voterRound(sink, pids, patchSingle, () => call('PATCH', `/api/v1/posts/${popular}`, { status: statuses[changes++ % statuses.length] }));
          results.get(name)!.push(r);
          log(`  round ${round + 1}, ${name} (worker ${workerJs ?? 'dist/src/worker.js'}):`);
          log(
            `    one-voter PATCH ${r.before.toFixed(1)} ms (median of ${PATCHES} before), ${VOTERS}-voter PATCH ${r.popular.toFixed(1)} ms, ` +
              `one-voter PATCH during the fan-out ${r.during.toFixed(1)} ms (median of ${r.duringCount})`,
          );
          log(
            `    ${r.count.distinct} of ${VOTERS} voters emailed, ${r.count.messages} emails to them, ${r.count.twice} twice ` +
              `(${r.count.others} other emails: earlier changes', the one-voter post's); ` +
              `${(r.count.distinct / r.seconds).toFixed(0)} emails/s from the PATCH's answer to the last arrival (${r.seconds.toFixed(1)} s), ` +
              `${(r.count.distinct / r.sendSeconds).toFixed(0)}/s from the first to the last; the worker's CPU ${r.workerCpuPerEmail.toFixed(2)} ms an email; load average ${loadavg()[0].toFixed(1)}`,
          );
          log(
            `    RSS idle → highest: API ${r.idle.api.toFixed(0)} → ${r.peak.api.toFixed(0)} MB, worker ${r.idle.worker.toFixed(0)} → ${r.peak.worker.toFixed(0)} MB ` +
              `(VmHWM since start: API ${peakRssMb(pids.api).toFixed(0)}, worker ${peakRssMb(pids.worker).toFixed(0)} MB)`,
          );
          if (r.count.distinct < VOTERS) throw new Error(`${name}: only ${r.count.distinct} of ${VOTERS} voters emailed within 30 minutes`);
          if (!(await waitFor(async () => (await pending()) === 0, 120_000))) log(`    ${await pending()} deliveries still pending 2 minutes after`);
        } finally {
          await stopProcess(worker, 60_000);
        }
      }
    }

    for (const [name, rounds] of results) {
      const med = (pick: (r: Round) => number) => median(rounds.map(pick));
      const patchRatio = med((r) => r.popular / r.before);
      const duringRatio = med((r) => r.during / r.before);
      const rate = med((r) => r.count.distinct / r.seconds);
      const growth = med((r) => Math.max(r.peak.api - r.idle.api, r.peak.worker - r.idle.worker));
      const exact = rounds.every((r) => r.count.distinct === VOTERS && r.count.twice === 0);
      const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
      log(`  ${name}: issue 35's targets (medians of ${rounds.length} rounds):`);
      log(`    ${verdict(patchRatio <= 3)} the ${VOTERS}-voter PATCH ${patchRatio.toFixed(2)}× a one-voter PATCH (≤ 3×)`);
      log(`    ${verdict(duringRatio <= 3)} PATCHes during the fan-out ${duringRatio.toFixed(2)}× those before (≤ 3×)`);
      log(`    ${verdict(rate >= 500)} ${rate.toFixed(0)} emails/s (≥ 500)`);
      log(`    ${verdict(exact)} every voter emailed exactly once`);
      log(`    ${verdict(growth <= 100)} peak RSS idle + ${growth.toFixed(0)} MB (≤ idle + 100 MB), the larger of the two processes' growth`);
    }
  } finally {
    await Promise.all(processes.map((child) => stopProcess(child, 10_000)));
    await sink.stop();
    await database.drop();
  }
}

// ---------------------------------------------------------------------------------------------
// endpoints

const BACKLOG = Number(process.env.BENCH_BACKLOG_DELIVERIES ?? 20_000);
const ENDPOINT_SIZES = (process.env.BENCH_ENDPOINT_SIZES ?? '50,1000,10000').split(',').map(Number);
const ENDPOINT_WORKSPACES = Number(process.env.BENCH_ENDPOINT_WORKSPACES ?? 10);
const ENDPOINT_ROUNDS = Number(process.env.BENCH_ENDPOINT_ROUNDS ?? 3);

/**
 * A backlog of BACKLOG webhook deliveries spread evenly over `endpoints` endpoints in
 * ENDPOINT_WORKSPACES business workspaces, made by SQL (endpoints sealed as the app seals them),
 * drained by one worker process into a local receiver: deliveries/s from the worker's start to
 * the last arrival.
 */
async function drainOnce(
  db: Client,
  box: SecretBox,
  workspaces: string[],
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  env: Record<string, string>,
  endpoints: number,
  workerJs?: string,
): Promise<number> {
  await db.query('TRUNCATE delivery_attempts, webhook_deliveries, webhook_endpoints, delivery_usage, outbox_queues');
  const ids: string[] = [];
  const rows: { ws: string[]; id: string[]; url: string[] } = { ws: [], id: [], url: [] };
  for (let i = 0; i < endpoints; i++) {
    const id = randomUUID();
    ids.push(id);
    rows.ws.push(workspaces[i % workspaces.length]);
    rows.id.push(id);
    rows.url.push(box.seal(receiver.url, urlContext(id)));
  }
  await db.query(
    `INSERT INTO webhook_endpoints (workspace_id, id, kind, url_sealed, url_shown, events)
     SELECT w, i, 'webhook', u, $4, ARRAY['post.created'] FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS e(w, i, u)`,
    [rows.ws, rows.id, rows.url, receiver.url],
  );
  // Delivery i goes to endpoint i mod N: every endpoint has BACKLOG / N of them, all due now.
  await db.query(
    `INSERT INTO webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_type, event_created_at, body, next_attempt_at)
     SELECT e.w, gen_random_uuid(), e.i, gen_random_uuid(), 'post.created', now(),
            '{"id":"' || gen_random_uuid() || '","type":"post.created","created_at":"2026-11-27T00:00:00.000Z","data":{"post":{"id":' || n || '}}}',
            now()
       FROM generate_series(0, $3::integer - 1) n
       JOIN unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS e(w, i, k) ON e.k = n % array_length($2::uuid[], 1) + 1`,
    [rows.ws, rows.id, BACKLOG],
  );
  // Their queues in the claim's ready-queue (outbox_queues), as fan-out writes them: due now.
  await db.query(
    `INSERT INTO outbox_queues (workspace_id, queue, endpoint_id, due_at)
     SELECT workspace_id, endpoint_id, endpoint_id, min(next_attempt_at) FROM webhook_deliveries GROUP BY 1, 2, 3`,
  );
  await db.query('VACUUM ANALYZE webhook_deliveries');
  await db.query('VACUUM ANALYZE outbox_queues');
  await db.query('VACUUM ANALYZE webhook_endpoints');
  receiver.reset();
  const started = performance.now();
  const worker = await startWorker(env, workerJs);
  try {
    if (!(await waitFor(async () => (await receiver.count()) >= BACKLOG, 10 * 60_000))) {
      throw new Error(`${endpoints} endpoints: only ${await receiver.count()} of ${BACKLOG} arrived in 10 minutes`);
    }
    return BACKLOG / ((performance.now() - started) / 1000);
  } finally {
    await stopProcess(worker, 10_000);
  }
}

async function endpointsPart(): Promise<void> {
  const database = await freshDatabase('chorus_bench_endpoints');
  const receiver = await startReceiver();
  const env = benchEnv(database.url);
  try {
    const app = await startApi(env, false);
    const workspaces: string[] = [];
    for (let i = 0; i < ENDPOINT_WORKSPACES; i++) workspaces.push((await seedWorkspace(app, `many-${i}`, 'business')).workspaceId);
    await closeApi(app);
    const db = new Client({ connectionString: database.url });
    await db.connect();
    const box = new SecretBox(env.ENCRYPTION_KEY);
    // This build's worker, and with BENCH_BEFORE (another build's dist/src/main.js) that build's
    // worker on the same backlog right before or after it, the order alternating.
    const builds: [string, string | undefined][] = [['this build', undefined]];
    if (process.env.BENCH_BEFORE) builds.unshift(['before', join(process.env.BENCH_BEFORE, '..', 'worker.js')]);
    const rates = new Map<string, Record<number, number[]>>(builds.map(([name]) => [name, {}]));
    try {
      log(`\nendpoints: a backlog of ${BACKLOG} deliveries over N endpoints (${ENDPOINT_WORKSPACES} workspaces), drained by one worker; ${ENDPOINT_ROUNDS} rounds, sizes in turn`);
      let turn = 0;
      for (let round = 0; round < ENDPOINT_ROUNDS; round++) {
        const sizes = round % 2 === 0 ? ENDPOINT_SIZES : [...ENDPOINT_SIZES].reverse();
        for (const size of sizes) {
          for (const [name, workerJs] of turn++ % 2 === 0 ? builds : [...builds].reverse()) {
            const rate = await drainOnce(db, box, workspaces, receiver, env, size, workerJs);
            (rates.get(name)![size] ??= []).push(rate);
            const who = builds.length > 1 ? ` ${name.padEnd(10)}` : '';
            log(`  round ${round + 1}: ${String(size).padStart(6)} endpoints${who} ${rate.toFixed(0).padStart(5)} deliveries/s (load average ${loadavg()[0].toFixed(1)})`);
          }
        }
      }
    } finally {
      await db.end();
    }
    for (const [name, byBuild] of rates) {
      const base = median(byBuild[ENDPOINT_SIZES[0]]);
      log(`  ${builds.length > 1 ? `${name}: ` : ''}medians (ratio to ${ENDPOINT_SIZES[0]} endpoints; issue 35's target ≥ 0.8×):`);
      for (const size of ENDPOINT_SIZES) {
        const m = median(byBuild[size]);
        const ratio = m / base;
        log(`    ${String(size).padStart(6)} endpoints ${m.toFixed(0).padStart(5)} deliveries/s  ${ratio.toFixed(2)}×${size === ENDPOINT_SIZES[0] ? '' : ratio >= 0.8 ? '  PASS' : '  FAIL'}`);
      }
    }
  } finally {
    await receiver.stop();
    await database.drop();
  }
}

async function main(): Promise<void> {
  const parts: Record<string, () => Promise<void>> = { mail, redis, voters, endpoints: endpointsPart };
  for (const part of PARTS) {
    if (!parts[part]) throw new Error(`BENCH_PARTS: no part ${part} (${Object.keys(parts).join(', ')})`);
    await parts[part]();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
