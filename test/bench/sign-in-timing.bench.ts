/**
 * How long the dashboard takes to answer "Email me a code" for a member's address and for a
 * stranger's: if the two differ, the answer's timing tells who is a member. Prints, for the
 * built Chorus (and with BENCH_BEFORE, an earlier build's dist/src/main.js, on a database of its
 * own), the median, p10 and p90 of each kind of request, in alternation, over BENCH_REQUESTS
 * requests of each (default 200), each to an address of its own (3 emails per address in 15
 * minutes), one at a time from one client. Figures, not a test: the machine's load moves them.
 *
 * `node dist/test/bench/sign-in-timing.bench.js` after `npm run build`. Environment:
 * BENCH_DATABASE_URL (the server; databases `chorus_bench_signin*` are made afresh),
 * BENCH_REQUESTS, BENCH_BEFORE.
 */
import { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { startBuiltChorus } from './load';
import { freshDatabase, log, pct } from './support';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const BEFORE = process.env.BENCH_BEFORE;
const ORIGIN = 'https://chorus.bench';

async function seed(dbUrl: string): Promise<void> {
  const db = new Client({ connectionString: dbUrl });
  await db.connect();
  const [{ id: ws }] = (await db.query(`INSERT INTO workspaces (slug, name, plan) VALUES ('bench', 'Bench', 'business') RETURNING id`)).rows;
  await db.query(`INSERT INTO people (workspace_id, kind, name, email) SELECT $1, 'member', 'Member ' || i, 'member' || i || '@bench.example' FROM generate_series(1, $2::int) i`, [
    ws,
    REQUESTS + 10,
  ]);
  await db.query(`ANALYZE`);
  await db.end();
}

/** One "Email me a code": the form (for its cookie and token), then the timed POST. */
async function ask(url: string, email: string): Promise<number> {
  const form = await fetch(`${url}/admin/sign-in`);
  const cookie = form.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
  const body = new URLSearchParams({ _csrf: token, email }).toString();
  const started = performance.now();
  const answer = await fetch(`${url}/admin/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  await answer.arrayBuffer();
  const ms = performance.now() - started;
  if (answer.status !== 303) throw new Error(`POST /admin/sign-in answered ${answer.status}`);
  return ms;
}

async function measure(label: string, mainJs: string, database: string): Promise<void> {
  const db = await freshDatabase(database);
  let child: ChildProcess | undefined;
  try {
    const started = await startBuiltChorus(mainJs, { DATABASE_URL: db.url, BASE_URL: ORIGIN, SIGN_IN_CLIENT_LIMIT: '1000000', LOG_LEVEL: 'warn' });
    child = started.child;
    await seed(db.url);
    const times = { member: [] as number[], stranger: [] as number[] };
    // Warm up both paths, then alternate.
    for (let i = 0; i < 10; i++) {
      await ask(started.url, `member${REQUESTS + 1 + (i % 10)}@bench.example`).catch(() => 0);
      await ask(started.url, `warm${i}@elsewhere.example`);
    }
    for (let i = 1; i <= REQUESTS; i++) {
      times.member.push(await ask(started.url, `member${i}@bench.example`));
      times.stranger.push(await ask(started.url, `stranger${i}@elsewhere.example`));
    }
    const row = (kind: 'member' | 'stranger') => {
      const sorted = [...times[kind]].sort((a, b) => a - b);
      return `${kind.padEnd(8)} p10 ${pct(sorted, 10).toFixed(2)} ms  median ${pct(sorted, 50).toFixed(2)} ms  p90 ${pct(sorted, 90).toFixed(2)} ms`;
    };
    const median = (kind: 'member' | 'stranger') => pct([...times[kind]].sort((a, b) => a - b), 50);
    log(`${label} (${REQUESTS} of each, alternating):`);
    log(`  ${row('member')}`);
    log(`  ${row('stranger')}`);
    log(`  median difference (member - stranger): ${(median('member') - median('stranger')).toFixed(2)} ms`);
  } finally {
    if (child && child.exitCode === null) child.kill('SIGTERM');
    await db.drop();
  }
}

async function main() {
  await measure('this build', join(__dirname, '..', '..', 'src', 'main.js'), 'chorus_bench_signin');
  if (BEFORE) await measure(`before (${BEFORE})`, BEFORE, 'chorus_bench_signin_before');
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
