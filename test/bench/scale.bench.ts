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
 */
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { loadConfig } from '../../src/config/app-config';
import { Mailer } from '../../src/notifications/mailer';
import { RedisCluster } from '../support/redis-cluster';
import { CONNECTIONS, GENERATOR, median, runLoad, startBuiltChorus } from './load';
import { benchEnv, closeApi, freshDatabase, Helper, log, pct, seedWorkspace, sleep, startApi, startHelper, stopProcess } from './support';

const PARTS = (process.env.BENCH_PARTS ?? 'mail,redis').split(',').map((part) => part.trim());
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

async function main(): Promise<void> {
  if (PARTS.includes('mail')) await mail();
  if (PARTS.includes('redis')) await redis();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
