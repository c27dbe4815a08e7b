/**
 * Chorus against its floors: the built Chorus (dist/src/main.js), floor-server.ts (node:http, pg,
 * ioredis, the SQL and Redis work Chorus did when issue 10 was opened, statement by statement,
 * no framework) and strong-floor-server.ts (the same job done well: named prepared statements, a
 * key's lookup kept for 5 s, a create in four round trips) on one seeded database, loaded in turn
 * with the same generator, 32 connections: GET /api/v1/posts?limit=25, then POST /api/v1/posts.
 * Prints req/s, p50 and p99 of each run, Chorus's ratios to each floor (medians over rounds) and
 * its peak RSS, then PASS or FAIL for issue 10's targets (against the plain floor) and issue 22's
 * (against the strong one).
 *
 * `npm run bench:floor`. Environment:
 * - BENCH_DATABASE_URL: the PostgreSQL server (default postgresql://postgres@127.0.0.1:5432/postgres);
 *   the bench works in a database `chorus_bench_floor`, dropped and created afresh.
 * - BENCH_REDIS_URL: default redis://127.0.0.1:6379.
 * - BENCH_POSTS (default 100000), BENCH_ROUNDS (default 5), BENCH_SECONDS per run (default 8),
 *   BENCH_CONNECTIONS (default 32).
 * - BENCH_MODERATION: `first` or `all` sets the workspace's moderation and holds 1% of the posts
 *   (the lists then leave them out), to compare lists with moderation on against BENCH_BEFORE.
 * - BENCH_ROUTES: the routes to load, `list,create` by default; with one of them (to profile it,
 *   say) the table is printed and no target is judged.
 * - BENCH_GENERATOR: wrk (the default when `wrk` is on the PATH) or autocannon.
 * - Chorus runs with the node flags of package.json's `start:prod` and the image's environment, as
 *   in production (runtime.ts).
 *   CHORUS_NODE_OPTIONS: extra node flags, e.g. `--cpu-prof --cpu-prof-dir=prof`;
 *   BENCH_FLOOR_NODE_FLAGS: the floors' node flags (none by default), to profile them alike.
 *   BENCH_CHORUS_STDOUT: a file that Chorus's standard output (its log, `--trace-gc`'s lines) is appended to.
 * - BENCH_BEFORE: the dist/src/main.js of an earlier build (a worktree at an older commit, built):
 *   loaded in the same rounds as a fourth server, so that before and after come from one run. It
 *   must accept this build's database (migrations are applied by the newer one first).
 *   BENCH_BEFORE_NODE_FLAGS: its node flags in place of start:prod's ("" for none). With
 *   BENCH_BEFORE set to this build, two sets of flags are compared in one run. Both run with the
 *   image's environment (runtime.ts); BENCH_CHORUS_ENV and BENCH_BEFORE_ENV (`K=V K=V`) change
 *   each one's, e.g. `MALLOC_ARENA_MAX=8`.
 *
 * Chorus runs with its defaults except: RUN_WORKER=false (the API alone, as the floor has no
 * outbox processor) and RATE_LIMIT_WINDOW_MS (BENCH_WINDOW_MS, default 100, as an operator tried
 * it in issue 30), so that the business plan's 300 requests per window admit every request of the
 * load (3,000 a second); the floor applies the same window.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../support/processes';
import { chorusEnv, chorusNodeArgs, productNodeFlags } from './runtime';
import { freshDatabase, log, sleep } from './support';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DB_NAME = 'chorus_bench_floor';
const POSTS = Number(process.env.BENCH_POSTS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WINDOW_MS = process.env.BENCH_WINDOW_MS ?? '100';
const hasWrk = (() => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    return (error as { status?: number }).status === 1; // wrk --version exits 1 after printing
  }
})();
const GENERATOR = process.env.BENCH_GENERATOR ?? (hasWrk ? 'wrk' : 'autocannon');
const BEFORE = process.env.BENCH_BEFORE;
const ROUTES = (process.env.BENCH_ROUTES ?? 'list,create').split(',');

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** CPU time a process has used so far (user and system), in microseconds; /proc counts in ticks of 10 ms. */
const cpuUs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000; // utime and stime, the 14th and 15th fields
};

/** Peak resident set size of a process so far (VmHWM), in MB. */
const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function waitFor(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    const ok = await fetch(url).then((r) => r.ok, () => false);
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`${url} did not answer within 60 s`);
}

interface Run {
  rps: number;
  /** The server's own CPU time per request, in µs (its database's is not counted). */
  cpu?: number;
  p50: number;
  p99: number;
  non2xx: number;
}

interface Load {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

function runWrk(baseUrl: string, key: string, load: Load, seconds: number): Run {
  const script = join(tmpdir(), `chorus-floor-${process.pid}.lua`);
  writeFileSync(
    script,
    `wrk.method = "${load.method}"
wrk.headers["Authorization"] = "Bearer ${key}"
${load.body ? `wrk.headers["Content-Type"] = "application/json"\nwrk.body = '${load.body}'` : ''}
local non2xx = 0
function response(status, headers, body) if status < 200 or status > 299 then non2xx = non2xx + 1 end end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d %d %d\\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99), summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
`,
  );
  // wrk's response() runs per thread and its counts do not reach done(); status errors do.
  const out = execFileSync('wrk', ['-t2', `-c${CONNECTIONS}`, `-d${seconds}s`, '-s', script, `${baseUrl}${load.path}`], {
    encoding: 'utf8',
  });
  const [requests, durationUs, p50, p99, errors] = /RESULT (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(out)!.slice(1).map(Number);
  return { rps: requests / (durationUs / 1e6), p50: p50 / 1000, p99: p99 / 1000, non2xx: errors };
}

async function runAutocannon(baseUrl: string, key: string, load: Load, seconds: number): Promise<Run> {
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

const run = (baseUrl: string, key: string, load: Load, seconds: number): Promise<Run> =>
  GENERATOR === 'wrk' ? Promise.resolve(runWrk(baseUrl, key, load, seconds)) : runAutocannon(baseUrl, key, load, seconds);

/** BENCH_MODERATION (`first` or `all`): the workspace's moderation, with 1% of its posts held (this build's schema). */
const MODERATION = process.env.BENCH_MODERATION;

async function seed(dbUrl: string): Promise<string> {
  const db = new Client({ connectionString: dbUrl });
  await db.connect();
  const key = `chorus_key_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x').slice(0, 40)}`;
  const [{ id: ws }] = (
    await db.query(`INSERT INTO workspaces (slug, name, plan) VALUES ('bench', 'Bench', 'business') RETURNING id`)
  ).rows;
  const [{ id: member }] = (
    await db.query(`INSERT INTO people (workspace_id, kind, name, email) VALUES ($1, 'member', 'Olive Owner', 'owner@bench.example') RETURNING id`, [ws])
  ).rows;
  await db.query(
    `INSERT INTO people (workspace_id, kind, name, email) SELECT $1, 'user', 'User ' || i, 'user' || i || '@bench.example' FROM generate_series(1, 200) i`,
    [ws],
  );
  await db.query(`INSERT INTO boards (workspace_id, slug, name) VALUES ($1, 'ideas', 'Ideas'), ($1, 'bugs', 'Bugs')`, [ws]);
  await db.query(
    `INSERT INTO api_keys (workspace_id, key_hash, key_prefix, created_by) VALUES ($1, $2, $3, $4)`,
    [ws, createHash('sha256').update(key).digest('hex'), key.slice(0, 15), member],
  );
  await db.query(
    `INSERT INTO posts (workspace_id, board_id, title, body, votes, author_id, created_at, updated_at)
     SELECT $1, (SELECT id FROM boards WHERE workspace_id = $1 AND slug = CASE WHEN g % 3 = 0 THEN 'bugs' ELSE 'ideas' END),
            'Post number ' || g || ' about exports', 'Please let us export the dashboard ' || g || ' as CSV every week.',
            1 + g % 17, (SELECT id FROM people WHERE workspace_id = $1 ORDER BY id OFFSET g % 201 LIMIT 1),
            now() - (($2 - g) * interval '10 minutes'), now() - (($2 - g) * interval '10 minutes')
       FROM generate_series(1, $2::int) g`,
    [ws, POSTS],
  );
  await db.query(
    `INSERT INTO votes (workspace_id, post_id, person_id) SELECT workspace_id, id, author_id FROM posts WHERE workspace_id = $1`,
    [ws],
  );
  if (MODERATION) {
    // The workspace's moderation on, and one post in a hundred held (spread over every page).
    await db.query(`UPDATE workspaces SET moderation = $2 WHERE id = $1`, [ws, MODERATION]);
    await db.query(`UPDATE posts SET moderation = 'pending' WHERE workspace_id = $1 AND id % 100 = 0`, [ws]);
  }
  await db.query(`VACUUM ANALYZE`);
  await db.end();
  return key;
}

/** A built Chorus (its dist/src/main.js) on the bench's database, the API alone; resolves once it answers. */
async function startChorus(mainJs: string, dbUrl: string, flags?: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...chorusNodeArgs(flags), mainJs], {
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: dbUrl,
      REDIS_URL,
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      BASE_URL: 'https://chorus.bench',
      RUN_WORKER: 'false',
      RATE_LIMIT_WINDOW_MS: WINDOW_MS,
      ...env,
    },
    // Its log lines (and what --trace-gc prints) go to BENCH_CHORUS_STDOUT when set: the file is opened for each Chorus started, so later ones append.
    stdio: ['ignore', process.env.BENCH_CHORUS_STDOUT ? openSync(process.env.BENCH_CHORUS_STDOUT, 'a') : 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`, child); // migrations have run
  return { child, url };
}

/** A floor server (floor-server.js or strong-floor-server.js, built beside this file) on the bench's database. */
async function startFloor(script: string, dbUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const flags = (process.env.BENCH_FLOOR_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, join(__dirname, script)], {
    env: { ...process.env, FLOOR_DATABASE_URL: dbUrl, FLOOR_REDIS_URL: REDIS_URL, FLOOR_WINDOW_MS: WINDOW_MS },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()).port));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

async function main() {
  const database = await freshDatabase(DB_NAME);
  const dbUrl = database.url;
  const children: ChildProcess[] = [];
  const stopAll = () => children.forEach((child) => child.exitCode === null && child.kill('SIGTERM'));
  process.on('exit', stopAll);
  try {
    const chorus = await startChorus(join(__dirname, '../../src/main.js'), dbUrl, undefined, chorusEnv());
    children.push(chorus.child);
    const started = Date.now();
    const key = await seed(dbUrl);
    log(`seeded ${POSTS} posts in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const floor = await startFloor('floor-server.js', dbUrl);
    children.push(floor.child);
    const strong = await startFloor('strong-floor-server.js', dbUrl);
    children.push(strong.child);

    const allLoads: Record<string, Load> = {
      list: { method: 'GET', path: '/api/v1/posts?limit=25' },
      create: {
        method: 'POST',
        path: '/api/v1/posts',
        body: JSON.stringify({ board: 'ideas', title: 'Export the roadmap as PDF', body: 'So that we can share it offline.' }),
      },
    };
    const loads = Object.fromEntries(Object.entries(allLoads).filter(([route]) => ROUTES.includes(route)));
    // A second Chorus, an earlier build (BENCH_BEFORE), on the same database: before and after in one run.
    // Its own settings, or production's: never Chorus's BENCH_NODE_FLAGS or BENCH_CHORUS_ENV (a default parameter once passed those on).
    const beforeFlags = process.env.BENCH_BEFORE_NODE_FLAGS ?? productNodeFlags();
    const before = BEFORE ? await startChorus(BEFORE, dbUrl, beforeFlags, chorusEnv(process.env.BENCH_BEFORE_ENV ?? '')) : undefined;
    if (before) children.push(before.child);
    const targets: Record<string, string> = {
      chorus: chorus.url,
      floor: floor.url,
      strong: strong.url,
      ...(before ? { before: before.url } : {}),
    };
    const pids: Record<string, number> = {
      chorus: chorus.child.pid!,
      floor: floor.child.pid!,
      strong: strong.child.pid!,
      ...(before ? { before: before.child.pid! } : {}),
    };
    log(`generator: ${GENERATOR}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per server and route`);
    for (const url of Object.values(targets)) for (const load of Object.values(loads)) await run(url, key, load, 2); // warm-up

    const runs: { round: number; route: string; server: string; run: Run }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternate which server goes first, so that a drift on the machine favours neither.
      const servers = Object.keys(targets);
      const order = round % 2 ? servers : [...servers].reverse();
      for (const [route, load] of Object.entries(loads)) {
        for (const server of order) {
          const cpuBefore = cpuUs(pids[server]);
          const result = await run(targets[server], key, load, SECONDS);
          result.cpu = (cpuUs(pids[server]) - cpuBefore) / (result.rps * SECONDS);
          runs.push({ round, route, server, run: result });
          log(
            `round ${round} ${route.padEnd(6)} ${server.padEnd(6)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms  CPU ${result.cpu.toFixed(0)} µs/req${result.non2xx ? `  !! ${result.non2xx} errors or non-2xx` : ''}`,
          );
        }
      }
    }

    const of = (route: string, server: string) => runs.filter((r) => r.route === route && r.server === server).map((r) => r.run);
    const row = (route: string, server: string, against: 'floor' | 'strong') => {
      const [c, f] = [of(route, server), of(route, against)];
      const rounds = c.map((_, i) => ({ rps: c[i].rps / f[i].rps, p99: c[i].p99 / f[i].p99 }));
      return {
        route,
        server,
        against,
        'req/s': Math.round(median(c.map((r) => r.rps))),
        'p50 ms': +median(c.map((r) => r.p50)).toFixed(1),
        'p99 ms': +median(c.map((r) => r.p99)).toFixed(1),
        'its req/s': Math.round(median(f.map((r) => r.rps))),
        'its p50 ms': +median(f.map((r) => r.p50)).toFixed(1),
        'its p99 ms': +median(f.map((r) => r.p99)).toFixed(1),
        'req/s ratio': +median(rounds.map((r) => r.rps)).toFixed(2),
        'p99 ratio': +median(rounds.map((r) => r.p99)).toFixed(2),
        'CPU µs/req': Math.round(median(c.map((r) => r.cpu!))),
        'its CPU µs/req': Math.round(median(f.map((r) => r.cpu!))),
        errors: [...c, ...f].reduce((n, r) => n + r.non2xx, 0),
      };
    };
    const servers = ['chorus', ...(before ? ['before'] : [])];
    const summary = Object.keys(loads).flatMap((route) =>
      servers.flatMap((server) => (['floor', 'strong'] as const).map((against) => row(route, server, against))),
    );
    log(`\nMedians over ${ROUNDS} rounds (ratios: median of the per-round ratios, server / the floor it is held against)`);
    console.table(summary);
    const rss = peakRssMb(chorus.child.pid!);
    log(
      `Chorus peak RSS: ${rss.toFixed(0)} MB (plain floor: ${peakRssMb(floor.child.pid!).toFixed(0)} MB, strong floor: ${peakRssMb(strong.child.pid!).toFixed(0)} MB${before ? `, before: ${peakRssMb(before.child.pid!).toFixed(0)} MB` : ''})`,
    );
    const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
    if (Object.keys(loads).length < Object.keys(allLoads).length) {
      log(`\nBENCH_ROUTES=${ROUTES.join(',')}: the targets are judged only when every route runs.`);
      return;
    }
    const [list, create] = [row('list', 'chorus', 'floor'), row('create', 'chorus', 'floor')];
    const errors = list.errors + create.errors;
    log(`\nIssue 10's targets, Chorus against the plain floor:`);
    log(`  ${verdict(list['req/s ratio'] >= 0.8)} list   >= 0.80x the floor's req/s: ${list['req/s ratio']}x`);
    log(`  ${verdict(create['req/s ratio'] >= 0.75)} create >= 0.75x the floor's req/s: ${create['req/s ratio']}x`);
    log(`  ${verdict(list['p99 ratio'] <= 1.5)} list   p99 <= 1.5x the floor's: ${list['p99 ratio']}x`);
    log(`  ${verdict(create['p99 ratio'] <= 1.5)} create p99 <= 1.5x the floor's: ${create['p99 ratio']}x`);
    log(`  ${verdict(rss <= 200)} peak RSS <= 200 MB: ${rss.toFixed(0)} MB`);
    const [strongList, strongCreate] = [row('list', 'chorus', 'strong'), row('create', 'chorus', 'strong')];
    const strongErrors = strongList.errors + strongCreate.errors;
    log(`\nIssue 22's targets, Chorus against the strong floor:`);
    log(
      `  ${verdict(strongList['req/s ratio'] >= 0.9 && strongList['p99 ratio'] <= 1.5)} list   >= 0.90x its req/s, p99 <= 1.5x its: ${strongList['req/s ratio']}x, p99 ${strongList['p99 ratio']}x`,
    );
    log(
      `  ${verdict(strongCreate['req/s ratio'] >= 0.9 && strongCreate['p99 ratio'] <= 1.5)} create >= 0.90x its req/s, p99 <= 1.5x its: ${strongCreate['req/s ratio']}x, p99 ${strongCreate['p99 ratio']}x`,
    );
    log(`  ${verdict(rss <= 150)} peak RSS <= 150 MB: ${rss.toFixed(0)} MB`);
    log(`  ${verdict(errors + strongErrors === 0)} no errors or non-2xx answers: ${errors + strongErrors}`);
  } finally {
    // Chorus shuts down gracefully on SIGTERM (and writes its profile, under --cpu-prof).
    const exited = children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve))));
    stopAll();
    await Promise.race([Promise.all(exited), sleep(20_000)]);
    await database.drop().catch(() => {});
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
