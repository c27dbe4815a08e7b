/**
 * Today's sender (`node:http`) against the same sender over `HttpService` from `@nestjs/axios`
 * (test/bench/axios-sender.ts: the same pinned keep-alive agents, address checks, 2 KiB cap,
 * whole-exchange timeout, stale-connection retry, no redirects, no proxy). Each round runs
 * deliveries.bench.js once per sender and mode, the senders' order alternating by round:
 * - backlog: BENCH_BACKLOG_EVENTS (2,000) events committed first, then one worker process drains
 *   them; deliveries per second;
 * - live: one worker process running while posts are created at BENCH_LIVE_RATE (100) a second
 *   for BENCH_LIVE_SECONDS (15); commit-to-arrival p99.
 * - alone: this process sends BENCH_ALONE_SENDS (4,000) POSTs, 16 at a time, through the sender
 *   to a local server of its own (the lookup answered in process); CPU per send (sender and
 *   server: the server's part is the same for both) and sends per second.
 * Prints every round's figures, the medians over BENCH_ROUNDS (5) rounds, each round's ratio
 * (axios ÷ node) and their median, and a verdict against issue #24's rule: the `HttpService`
 * sender within 10% of today's on drain (ratio ≥ 0.90) and on live p99 (ratio ≤ 1.10).
 *
 * `npm run bench:senders` (wrap it in `flock /work/bench.lock` on a shared machine).
 */
import { spawn } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { HttpService } from '@nestjs/axios';
import type { AppConfig } from '../../src/config/app-config';
import type { NameResolver } from '../../src/webhooks/name-resolver';
import { WebhookSender } from '../../src/webhooks/webhook-sender';
import { AxiosWebhookSender } from './axios-sender';
import { log, TIMEOUT_MS } from './support';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BACKLOG_EVENTS = Number(process.env.BENCH_BACKLOG_EVENTS ?? 2_000);
const LIVE_RATE = Number(process.env.BENCH_LIVE_RATE ?? 100);
const LIVE_SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 15);
const ALONE_SENDS = Number(process.env.BENCH_ALONE_SENDS ?? 4_000);
const SENDERS = ['node', 'axios'] as const;
type Sender = (typeof SENDERS)[number];

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Runs deliveries.bench.js with `env` added and returns its output; throws when it fails. */
function deliveries(env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, 'deliveries.bench.js')], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`deliveries bench exited with ${code}:\n${output}`))));
  });
}

function figure(output: string, pattern: RegExp): number {
  const match = pattern.exec(output);
  if (!match) throw new Error(`no ${pattern} in:\n${output}`);
  return Number(match[1]);
}

async function drain(sender: Sender): Promise<number> {
  const output = await deliveries({ BENCH_SENDER: sender, BENCH_BACKLOG: 'true', BENCH_WORKERS: '1', BENCH_RATE: '0', BENCH_EVENTS: String(BACKLOG_EVENTS) });
  return figure(output, /backlog drained at:\s+(\d+) deliveries per second/);
}

async function liveP99(sender: Sender): Promise<number> {
  const output = await deliveries({
    BENCH_SENDER: sender,
    BENCH_BACKLOG: 'false',
    BENCH_WORKERS: '1',
    BENCH_RATE: String(LIVE_RATE),
    BENCH_EVENTS: String(LIVE_RATE * LIVE_SECONDS),
  });
  return figure(output, /commit-to-arrival \(ms\):.*\bp99 (-?\d+)/);
}

/** The sender alone: ALONE_SENDS POSTs, 16 at a time, to `url`; CPU µs per send and sends per second. */
async function alone(sender: Sender, url: string): Promise<{ cpuUs: number; perSecond: number }> {
  const config = { webhookAllowPrivateTargets: true, webhookTimeoutMs: TIMEOUT_MS } as AppConfig;
  const resolver = { resolve: async () => [{ address: '127.0.0.1', family: 4 }] } as unknown as NameResolver;
  const made = sender === 'node' ? new WebhookSender(config, resolver) : new AxiosWebhookSender(config, resolver, new HttpService());
  const body = JSON.stringify({ type: 'post.created', data: { post: { id: 1, title: 'Benchmark event', body: 'x'.repeat(500) } } });
  const headers = { 'Content-Type': 'application/json', 'User-Agent': 'Chorus-Webhooks/bench' };
  let next = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  try {
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next++ < ALONE_SENDS) {
          const result = await made.post({ workspaceId: 'bench', kind: 'webhook', url }, headers, body);
          if (result.statusCode !== 200) throw new Error(`the ${sender} sender got ${JSON.stringify(result)}`);
        }
      }),
    );
  } finally {
    made.onApplicationShutdown();
  }
  const used = process.cpuUsage(cpu);
  return { cpuUs: Math.round((used.user + used.system) / ALONE_SENDS), perSecond: Math.round((ALONE_SENDS / (performance.now() - started)) * 1000) };
}

async function main() {
  log(
    `${ROUNDS} rounds; backlog: ${BACKLOG_EVENTS} events, one worker process; live: ${LIVE_RATE} posts/s for ${LIVE_SECONDS} s, ` +
      `one worker process; senders alternate in order by round`,
  );
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const drains: Record<Sender, number[]> = { node: [], axios: [] };
  const p99s: Record<Sender, number[]> = { node: [], axios: [] };
  const cpus: Record<Sender, number[]> = { node: [], axios: [] };
  for (const sender of SENDERS) await alone(sender, url); // warm-up (JIT, connections): not counted
  for (let round = 1; round <= ROUNDS; round++) {
    const order: Sender[] = round % 2 ? ['node', 'axios'] : ['axios', 'node'];
    for (const sender of order) {
      const { cpuUs, perSecond } = await alone(sender, url);
      cpus[sender].push(cpuUs);
      log(`round ${round}: ${sender} alone: ${cpuUs} µs CPU a send, ${perSecond} sends/s`);
    }
    for (const sender of order) drains[sender].push(await drain(sender));
    for (const sender of order) p99s[sender].push(await liveP99(sender));
    const i = round - 1;
    log(
      `round ${round} (${order.join(' first, ')} second): backlog node ${drains.node[i]}/s, axios ${drains.axios[i]}/s ` +
        `(${(drains.axios[i] / drains.node[i]).toFixed(3)}); live p99 node ${p99s.node[i]} ms, axios ${p99s.axios[i]} ms ` +
        `(${(p99s.axios[i] / p99s.node[i]).toFixed(3)})`,
    );
  }
  server.close();
  const drainRatio = median(drains.axios.map((a, i) => a / drains.node[i]));
  const p99Ratio = median(p99s.axios.map((a, i) => a / p99s.node[i]));
  const drainPass = drainRatio >= 0.9;
  const p99Pass = p99Ratio <= 1.1;
  log('');
  log(`backlog drain, one worker (deliveries/s), medians: node ${median(drains.node)}, axios ${median(drains.axios)}`);
  log(`live commit-to-arrival p99 (ms), medians:     node ${median(p99s.node)}, axios ${median(p99s.axios)}`);
  log(`the sender alone, CPU µs a send, medians:  node ${median(cpus.node)}, axios ${median(cpus.axios)}`);
  log(`drain ratio axios/node (median of rounds): ${drainRatio.toFixed(3)}  ${drainPass ? 'PASS' : 'FAIL'} (≥ 0.90)`);
  log(`p99 ratio axios/node (median of rounds):   ${p99Ratio.toFixed(3)}  ${p99Pass ? 'PASS' : 'FAIL'} (≤ 1.10)`);
  log(`verdict: the HttpService sender is ${drainPass && p99Pass ? '' : 'not '}within 10% of today's sender`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
