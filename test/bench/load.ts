/**
 * What the HTTP load benchmarks share: the load generator (wrk when installed, else
 * autocannon), a built Chorus started on a database, medians and peak RSS.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/processes';
import { chorusEnv, chorusNodeArgs } from './runtime';
import { sleep } from './support';

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const hasWrk = (() => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    return (error as { status?: number }).status === 1; // wrk --version exits 1 after printing
  }
})();
export const GENERATOR = process.env.BENCH_GENERATOR ?? (hasWrk ? 'wrk' : 'autocannon');

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Peak resident set size of a process so far (VmHWM), in MB. */
export const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

export async function waitUntilAnswers(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`${url} did not answer within 60 s`);
}

export interface Run {
  rps: number;
  p50: number;
  p99: number;
  /** Answers of 400 and up, and socket errors. */
  unexpected: number;
}

export interface Load {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The status its answers have (checked once, before the load runs). */
  status: number;
}

/** One request of a load, to check that it answers as the load expects before timing it. */
export async function checkLoad(baseUrl: string, load: Load): Promise<void> {
  const res = await fetch(`${baseUrl}${load.path}`, { method: load.method, headers: load.headers, body: load.body, redirect: 'manual' });
  await res.arrayBuffer();
  if (res.status !== load.status) throw new Error(`${load.method} ${load.path} answered ${res.status}, not ${load.status}`);
}

function runWrk(baseUrl: string, load: Load, seconds: number): Run {
  const script = join(tmpdir(), `chorus-load-${process.pid}.lua`);
  const headers = Object.entries(load.headers ?? {}).map(([name, value]) => `wrk.headers["${name}"] = "${value.replace(/"/g, '\\"')}"`);
  writeFileSync(
    script,
    `wrk.method = "${load.method}"
${headers.join('\n')}
${load.body ? `wrk.body = '${load.body}'` : ''}
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d %d %d\\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99), summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
`,
  );
  // wrk counts answers of 400 and up, and socket errors; each load's status is checked once before it runs (checkLoad).
  const out = execFileSync('wrk', ['-t2', `-c${CONNECTIONS}`, `-d${seconds}s`, '-s', script, `${baseUrl}${load.path}`], { encoding: 'utf8' });
  const [requests, durationUs, p50, p99, errors] = /RESULT (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(out)!.slice(1).map(Number);
  return { rps: requests / (durationUs / 1e6), p50: p50 / 1000, p99: p99 / 1000, unexpected: errors };
}

async function runAutocannon(baseUrl: string, load: Load, seconds: number): Promise<Run> {
  const autocannon = require('autocannon');
  const result = await autocannon({
    url: `${baseUrl}${load.path}`,
    method: load.method,
    connections: CONNECTIONS,
    duration: seconds,
    headers: load.headers,
    body: load.body,
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, unexpected: result['4xx'] + result['5xx'] + result.errors };
}

export const runLoad = (baseUrl: string, load: Load, seconds: number): Promise<Run> =>
  GENERATOR === 'wrk' ? Promise.resolve(runWrk(baseUrl, load, seconds)) : runAutocannon(baseUrl, load, seconds);

/** A built Chorus (its dist/src/main.js) on a database, the API alone; resolves once it answers. */
export async function startBuiltChorus(mainJs: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...chorusNodeArgs(), mainJs], {
    env: {
      ...process.env,
      ...chorusEnv(),
      PORT: String(port),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      RUN_WORKER: 'false',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilAnswers(`${url}/healthz`, child); // migrations have run
  return { child, url };
}
