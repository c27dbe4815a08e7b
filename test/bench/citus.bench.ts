/**
 * Chorus on Citus against Chorus on plain PostgreSQL, on this machine: `npm run bench:citus`.
 *
 * 1. List and create: the built Chorus (dist/src/main.js, the API alone) on a fresh database of
 *    each, seeded alike (one workspace, BENCH_POSTS posts, default 2,000); then BENCH_ROUNDS (5)
 *    rounds, each loading `GET /api/v1/posts?limit=25` and `POST /api/v1/posts` for
 *    BENCH_SECONDS (5) on each database in turn (the order alternates by round). Prints req/s,
 *    p50 and p99 of each, and Citus's ratio to PostgreSQL (median of the rounds' ratios).
 * 2. A backlog drain with three worker processes: `deliveries.bench.js` with BENCH_BACKLOG=true
 *    BENCH_WORKERS=3 on each database in turn (BENCH_EVENTS, default 2,000, committed first),
 *    BENCH_DRAIN_ROUNDS (2) times, alternating; prints each run's deliveries per second.
 *
 * Citus is the local cluster of ../shared/citus/cluster: a coordinator and two workers, all
 * PostgreSQL servers on this machine, as is the plain PostgreSQL (BENCH_DATABASE_URL's server).
 * No target: on one 2-core machine, Citus's extra hop (coordinator to worker) costs, and its
 * spreading over nodes cannot gain. The figures say what that hop costs.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { PostsService } from '../../src/posts/posts.service';
import { createCitusDatabase, dropCitusDatabase, startCluster } from '../support/citus';
import { checkLoad, GENERATOR, Load, median, Run, runLoad, startBuiltChorus } from './load';
import { benchEnv, closeApi, freshDatabase, log, seedWorkspace, startApi, stopProcess } from './support';

const POSTS = Number(process.env.BENCH_POSTS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const DRAIN_ROUNDS = Number(process.env.BENCH_DRAIN_ROUNDS ?? 2);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);

interface Target {
  name: 'postgres' | 'citus';
  url: string;
  drop(): Promise<void>;
}

/** A workspace (business plan), its posts and an API key, through the app in this process. */
async function seed(url: string, env: Record<string, string>): Promise<string> {
  const app = await startApi({ ...env, DATABASE_URL: url }, false);
  try {
    const actor = await seedWorkspace(app, 'bench', 'business');
    const posts = app.get(PostsService);
    for (let i = 0; i < POSTS; i += 16) {
      await Promise.all(
        Array.from({ length: Math.min(16, POSTS - i) }, (_, j) =>
          posts.create(actor, { board: 'ideas', title: `Seeded post ${i + j}`, body: 'A post to list.' }),
        ),
      );
    }
    return (await app.get(ApiKeysService).create('bench', 'owner@bench.example')).key;
  } finally {
    await closeApi(app);
  }
}

async function listAndCreate(targets: Target[]): Promise<void> {
  const servers: { target: Target; url: string; stop(): Promise<void>; key: string }[] = [];
  try {
    for (const target of targets) {
      const env = benchEnv(target.url);
      const key = await seed(target.url, env);
      const { child, url } = await startBuiltChorus(join(__dirname, '..', '..', 'src', 'main.js'), {
        ...env,
        LOG_LEVEL: 'warn',
        // As bench:floor: the business plan's 300 requests a window admit every request of the load.
        RATE_LIMIT_WINDOW_MS: '100',
      });
      servers.push({ target, url, key, stop: () => stopProcess(child) });
    }
    const loads = (key: string): Record<string, Load> => ({
      list: { method: 'GET', path: '/api/v1/posts?limit=25', headers: { authorization: `Bearer ${key}` }, status: 200 },
      create: {
        method: 'POST',
        path: '/api/v1/posts',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ board: 'ideas', title: 'A benchmark post', body: 'Created under load.' }),
        status: 201,
      },
    });
    for (const s of servers) for (const load of Object.values(loads(s.key))) await checkLoad(s.url, load);
    const runs: Record<string, Record<string, Run[]>> = { list: { postgres: [], citus: [] }, create: { postgres: [], citus: [] } };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const kind of ['list', 'create']) {
        for (const s of order) {
          const run = await runLoad(s.url, loads(s.key)[kind], SECONDS);
          runs[kind][s.target.name].push(run);
          log(`round ${round + 1} ${kind} on ${s.target.name}: ${run.rps.toFixed(0)} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms, unexpected ${run.unexpected}`);
        }
      }
    }
    log(`\nList and create (${GENERATOR}, ${SECONDS} s a load, ${ROUNDS} rounds, medians):`);
    for (const kind of ['list', 'create']) {
      const of = (name: string, pick: (r: Run) => number) => median(runs[kind][name].map(pick));
      const ratios = runs[kind].citus.map((c, i) => c.rps / runs[kind].postgres[i].rps);
      const unexpected = [...runs[kind].postgres, ...runs[kind].citus].reduce((n, r) => n + r.unexpected, 0);
      log(
        `  ${kind.padEnd(6)} PostgreSQL ${of('postgres', (r) => r.rps).toFixed(0)} req/s (p50 ${of('postgres', (r) => r.p50)} ms, p99 ${of('postgres', (r) => r.p99)} ms); ` +
          `Citus ${of('citus', (r) => r.rps).toFixed(0)} req/s (p50 ${of('citus', (r) => r.p50)} ms, p99 ${of('citus', (r) => r.p99)} ms); ` +
          `Citus/PostgreSQL ${median(ratios).toFixed(2)}; answers not expected: ${unexpected}`,
      );
    }
  } finally {
    for (const s of servers) await s.stop();
  }
}

/** deliveries.bench.js draining a backlog with three workers; answers deliveries per second. */
function drain(citus: boolean): number {
  const out = execFileSync(process.execPath, [join(__dirname, 'deliveries.bench.js')], {
    encoding: 'utf8',
    env: { ...process.env, BENCH_BACKLOG: 'true', BENCH_WORKERS: '3', BENCH_EVENTS: String(EVENTS), BENCH_CITUS: String(citus) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rate = /backlog drained at:\s+([\d.]+) deliveries per second/.exec(out);
  if (!rate) throw new Error(`deliveries.bench printed no rate:\n${out}`);
  // Whether every delivery arrived, once: deliveries.bench's own count.
  log(`  ${citus ? 'Citus' : 'PostgreSQL'}: ${/deliveries arrived:.*/.exec(out)?.[0]}`);
  return Number(rate[1]);
}

async function main() {
  log(startCluster(2));
  const pg = await freshDatabase('chorus_bench_citus_pg');
  dropCitusDatabase('chorus_bench_citus');
  const citusUrl = createCitusDatabase('chorus_bench_citus');
  const targets: Target[] = [
    { name: 'postgres', url: pg.url, drop: pg.drop },
    { name: 'citus', url: citusUrl, drop: async () => void dropCitusDatabase('chorus_bench_citus') },
  ];
  try {
    await listAndCreate(targets);
  } finally {
    for (const t of targets) await t.drop();
  }
  const rates: Record<string, number[]> = { postgres: [], citus: [] };
  for (let round = 0; round < DRAIN_ROUNDS; round++) {
    for (const citus of round % 2 === 0 ? [false, true] : [true, false]) {
      const rate = drain(citus);
      rates[citus ? 'citus' : 'postgres'].push(rate);
      log(`drain round ${round + 1} on ${citus ? 'Citus' : 'PostgreSQL'}: ${rate.toFixed(0)} deliveries/s`);
    }
  }
  log(
    `\nBacklog of ${EVENTS} events drained by three workers (median of ${DRAIN_ROUNDS}): ` +
      `PostgreSQL ${median(rates.postgres).toFixed(0)}/s, Citus ${median(rates.citus).toFixed(0)}/s`,
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
