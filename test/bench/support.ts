/**
 * What the delivery benchmarks share: a fresh database, the app on the product's defaults, worker
 * processes, helper processes on local ports (a receiver that answers 200), a seeded workspace,
 * and percentiles. Every process started here is killed when the bench exits, however it exits.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Client } from 'pg';
import { createApp } from '../../src/app';
import { BoardsService } from '../../src/boards/boards.service';
import { loadConfig } from '../../src/config/app-config';
import type { Actor } from '../../src/posts/posts.service';
import type { Plan } from '../../src/workspaces/plans';
import { WorkspacesService } from '../../src/workspaces/workspaces.service';
import { createCitusDatabase, dropCitusDatabase, startCluster } from '../support/citus';
import { chorusEnv, chorusNodeArgs } from './runtime';

export const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const TIMEOUT_MS = 10_000; // the product's default WEBHOOK_TIMEOUT_MS
export const KEEP = process.env.BENCH_KEEP === 'true';

export const log = (...args: unknown[]) => console.log(...args);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const pct = <T>(sorted: T[], p: number): T => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const children = new Set<ChildProcess>();
// A bench that throws or is interrupted must not leave receivers or workers behind.
process.on('exit', () => children.forEach((child) => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** SIGTERM, then SIGKILL if the process is still there after `graceMs`. */
export function stopProcess(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** A database of the bench's own on the server, dropped and created afresh. */
export async function freshDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (process.env.BENCH_CITUS === 'true') {
    // On the local Citus cluster (test/support/citus.ts): the database on every node, workers registered.
    startCluster(2);
    dropCitusDatabase(name);
    const url = createCitusDatabase(name);
    return { url, drop: async () => void (KEEP || dropCitusDatabase(name)) };
  }
  const admin = new Client({ connectionString: SERVER_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const drop = async () => {
    if (KEEP) return;
    const client = new Client({ connectionString: SERVER_URL });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => client.end());
  };
  return { url: Object.assign(new URL(SERVER_URL), { pathname: `/${name}` }).toString(), drop };
}

/** The environment of the API and of every worker: the product's defaults (OUTBOX_* taken from the bench's own), local targets allowed. */
export function benchEnv(databaseUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    BASE_URL: 'https://chorus.bench',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    // The outbox's shares may be tried other than the defaults: OUTBOX_CONCURRENCY=… npm run bench:…
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('OUTBOX_')) as [string, string][]),
  };
}

/** The app in this process, migrated and initialised; with `runWorker` its own outbox processor runs. */
export async function startApi(env: Record<string, string>, runWorker: boolean, logLevel = 'warn'): Promise<NestExpressApplication> {
  const config = loadConfig({ ...env, RUN_WORKER: String(runWorker), LOG_LEVEL: logLevel });
  const app = await createApp(config, { url: env.DATABASE_URL, embedded: false, close: async () => {} });
  await app.init();
  return app;
}

/** Closes the app, or gives up waiting after `ms` (the bench must always end). */
export async function closeApi(app: NestExpressApplication, ms = 20_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([app.close(), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Starts an outbox worker process (dist/src/worker.js, or `workerJs`: another build's) and resolves once it runs. With
 * BENCH_SENDER set (`node` or `axios`), the worker is dist/test/bench/sender-worker.js, which
 * sends through that sender. BENCH_WORKER_LOG=<file>: the worker's output is appended there
 * (its warnings, each attempt's line), to find what went wrong in a run.
 */
export function startWorker(env: Record<string, string>, workerJs?: string): Promise<ChildProcess> {
  const sender = process.env.BENCH_SENDER;
  const script = workerJs ?? (sender ? join(__dirname, 'sender-worker.js') : join(__dirname, '..', '..', 'src', 'worker.js'));
  const child = track(
    spawn(process.execPath, [...chorusNodeArgs(), script], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...chorusEnv(), ...env, ...(sender ? { BENCH_SENDER: sender } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let output = '';
  return new Promise((resolve, reject) => {
    // Read for as long as the worker lives (a full pipe would stall it); keep the tail for errors.
    const logFile = process.env.BENCH_WORKER_LOG;
    const seen = (chunk: Buffer) => {
      if (logFile) appendFileSync(logFile, chunk);
      // Looked for before the tail is cut: one read of the pipe can hold more than the tail
      // kept, with the line near its start (the endpoints part once waited for good).
      const joined = output + chunk;
      if (joined.includes('Outbox processor running')) resolve(child);
      output = joined.slice(-8_192);
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
  });
}

/** A helper process running `script`, listening on a port it reports; questions go over IPC. */
export interface Helper {
  port: number;
  ask<T>(question: string, key: string): Promise<T>;
  send(message: string): void;
  stop(): Promise<void>;
}

/** Starts `script` (CommonJS) in a process of its own, so that its timing does not wait on the bench. */
export async function startHelper(script: string, args: string[] = []): Promise<Helper> {
  const child = track(spawn(process.execPath, ['-e', script, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`helper process exited with ${code}`)));
    child.once('message', (m: { port: number }) => resolve(m.port));
  });
  return {
    port,
    ask: <T>(question: string, key: string) =>
      new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`helper process did not answer '${question}'`)), 10_000);
        const on = (m: Record<string, unknown>) => {
          if (key in m) {
            clearTimeout(timer);
            child.off('message', on);
            resolve(m[key] as T);
          }
        };
        child.on('message', on);
        child.send(question);
      }),
    send: (message) => child.send(message),
    stop: () => stopProcess(child, 2_000),
  };
}

/** Answers 200 (after `delayMs`) and records [post id, arrival ms, Chorus-Delivery] per request. */
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

/** [post id, arrival time in ms, delivery id] */
export type Arrival = [number, number, string];

export interface Receiver {
  url: string;
  count(): Promise<number>;
  report(): Promise<Arrival[]>;
  reset(): void;
  stop(): Promise<void>;
}

export async function startReceiver(delayMs = 0): Promise<Receiver> {
  const helper = await startHelper(RECEIVER, [String(delayMs)]);
  return {
    url: `http://127.0.0.1:${helper.port}/hooks/chorus`,
    count: () => helper.ask<number>('count', 'count'),
    report: () => helper.ask<Arrival[]>('report', 'arrivals'),
    reset: () => helper.send('reset'),
    stop: () => helper.stop(),
  };
}

/** Polls `done` every 20 ms; false if it did not come true within `timeoutMs`. */
export async function waitFor(done: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const started = Date.now();
  while (!(await done())) {
    if (Date.now() - started > timeoutMs) return false;
    await sleep(20);
  }
  return true;
}

/** The first arrival of each post id. */
export function firstArrivals(arrivals: Arrival[]): Map<number, number> {
  const first = new Map<number, number>();
  for (const [postId, at] of arrivals) if (!first.has(postId)) first.set(postId, at);
  return first;
}

/** A workspace with a member and a board `ideas`; the actor creates posts as that member. */
export async function seedWorkspace(app: NestExpressApplication, slug: string, plan: Plan): Promise<Actor> {
  const workspaces = app.get(WorkspacesService);
  const workspace = await workspaces.create({ name: slug, slug, plan });
  const member = await workspaces.addPerson(workspace.id, { kind: 'member', name: 'Olive Owner', email: `owner@${slug}.example` });
  await app.get(BoardsService).create(slug, { slug: 'ideas', name: 'Ideas' });
  return { workspaceId: workspace.id, workspaceSlug: slug, personId: member.id };
}
