/**
 * The public site against the API, in one run: the built Chorus on a seeded database, loaded in
 * turn (the order alternating by round) with
 * - `api`:  GET /api/v1/posts?board=ideas&limit=25, with a key (the posts a board page shows);
 * - `page`: GET /bench/ideas, the board page for a visitor without a session (the same 25 posts),
 *   as such visitors get it: sent from memory while nothing on it changes;
 * - `rendered`: the same page asked for with `Cache-Control: no-cache` (a hard reload), so read
 *   and rendered every time: what a page costs when the board changes between requests;
 * - `304`:  the same page with If-None-Match of its ETag (a revalidation, which reads no posts);
 * - with BENCH_BEFORE, `api-before`, `page-before` and `rendered-before`: the same on an earlier
 *   build, on the same database, so that a change's effect (the site's on the API, moderation's
 *   on the pages) is measured in the same run.
 * BENCH_MODERATION (`first` or `all`) sets the workspace's moderation and holds one post in a
 * hundred, as bench:floor does (issue 32: the board pages no slower with moderation on).
 * Prints req/s, p50 and p99 of every run, the medians and per-round ratios, the bytes a board
 * page and its stylesheet take as served, and PASS or FAIL for the public site's targets: a
 * page at >= 0.9x the API's req/s with p99 within 1.5x of the API's, a 304 at >= 3x, HTML and
 * CSS together under 40 KiB; the rendered page's ratios are printed against the same targets, as
 * a figure (a board's page is rendered once per change).
 *
 * `npm run bench:pages`. Environment: BENCH_DATABASE_URL (the server; the bench works in a
 * database `chorus_bench_pages`, made afresh), BENCH_REDIS_URL, BENCH_POSTS (default 100000),
 * BENCH_ROUNDS (5), BENCH_SECONDS (8), BENCH_CONNECTIONS (32), BENCH_GENERATOR, CHORUS_NODE_OPTIONS,
 * BENCH_BEFORE (an earlier build's dist/src/main.js), BENCH_LOADS (some of the loads, e.g.
 * `rendered` to profile the rendering alone with CHORUS_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=prof").
 */
import { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { checkLoad, CONNECTIONS, GENERATOR, Load, median, peakRssMb, Run, runLoad, startBuiltChorus } from './load';
import { freshDatabase, log, sleep } from './support';

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const POSTS = Number(process.env.BENCH_POSTS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const BEFORE = process.env.BENCH_BEFORE;
const MODERATION = process.env.BENCH_MODERATION;

/** One workspace (business plan) with one public board of POSTS posts, 200 people, votes and comment counts. */
async function seed(dbUrl: string): Promise<string> {
  const db = new Client({ connectionString: dbUrl });
  await db.connect();
  const key = `chorus_key_${randomBytes(30).toString('base64url').replace(/[-_]/g, 'x').slice(0, 40)}`;
  const [{ id: ws }] = (await db.query(`INSERT INTO workspaces (slug, name, plan) VALUES ('bench', 'Bench', 'business') RETURNING id`)).rows;
  const [{ id: member }] = (
    await db.query(`INSERT INTO people (workspace_id, kind, name, email) VALUES ($1, 'member', 'Olive Owner', 'owner@bench.example') RETURNING id`, [ws])
  ).rows;
  await db.query(`INSERT INTO people (workspace_id, kind, name, email) SELECT $1, 'user', 'User ' || i, 'user' || i || '@bench.example' FROM generate_series(1, 200) i`, [ws]);
  await db.query(`INSERT INTO boards (workspace_id, slug, name, description) VALUES ($1, 'ideas', 'Ideas', 'What our users would like next.')`, [ws]);
  await db.query(`INSERT INTO api_keys (workspace_id, key_hash, key_prefix, created_by) VALUES ($1, $2, $3, $4)`, [
    ws,
    createHash('sha256').update(key).digest('hex'),
    key.slice(0, 15),
    member,
  ]);
  await db.query(
    `INSERT INTO posts (workspace_id, board_id, title, body, votes, comments_count, status, category, author_id, created_at, updated_at)
     SELECT $1, (SELECT id FROM boards WHERE workspace_id = $1),
            'Post number ' || g || ': export the dashboard as CSV every week',
            'Our team reports to management monthly and copies every post by hand today. A CSV export of post ' || g ||
              ' with votes and status would save us an afternoon each time, and we could chart it.',
            1 + g % 17, g % 5, (ARRAY['open', 'planned', 'in_progress', 'done', 'closed'])[1 + g % 5],
            (ARRAY['feature', 'bug', 'improvement'])[1 + g % 3],
            (SELECT id FROM people WHERE workspace_id = $1 ORDER BY id OFFSET g % 201 LIMIT 1),
            now() - (($2 - g) * interval '10 minutes'), now() - (($2 - g) * interval '10 minutes')
       FROM generate_series(1, $2::int) g`,
    [ws, POSTS],
  );
  await db.query(`INSERT INTO votes (workspace_id, post_id, person_id) SELECT workspace_id, id, author_id FROM posts WHERE workspace_id = $1`, [ws]);
  if (MODERATION) {
    await db.query(`UPDATE workspaces SET moderation = $2 WHERE id = $1`, [ws, MODERATION]);
    await db.query(`UPDATE posts SET moderation = 'pending' WHERE workspace_id = $1 AND id % 100 = 0`, [ws]);
  }
  await db.query(`VACUUM ANALYZE`);
  await db.end();
  return key;
}

async function main() {
  const database = await freshDatabase('chorus_bench_pages');
  const children: ChildProcess[] = [];
  const stopAll = () => children.forEach((child) => child.exitCode === null && child.kill('SIGTERM'));
  process.on('exit', stopAll);
  try {
    // RATE_LIMIT_WINDOW_MS=10: the business plan's 300 requests a window then admit the whole API load.
    const env = { DATABASE_URL: database.url, REDIS_URL, BASE_URL: 'https://chorus.bench', RATE_LIMIT_WINDOW_MS: '10' };
    const chorus = await startBuiltChorus(join(__dirname, '../../src/main.js'), env);
    children.push(chorus.child);
    const started = Date.now();
    const key = await seed(database.url);
    log(`seeded ${POSTS} posts in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const before = BEFORE ? await startBuiltChorus(BEFORE, env) : undefined;
    if (before) children.push(before.child);

    const page = await fetch(`${chorus.url}/bench/ideas`);
    const html = await page.text();
    const etag = page.headers.get('etag');
    if (page.status !== 200 || !etag) throw new Error(`the board page answered ${page.status} with ETag ${etag}`);
    const css = /href="(\/assets\/chorus\.[0-9a-f]+\.css)"/.exec(html)![1];
    const sheet = Buffer.from(await (await fetch(chorus.url + css)).arrayBuffer());
    const bytes = { html: Buffer.byteLength(html), css: sheet.length };
    const listed = (await (await fetch(`${chorus.url}/api/v1/posts?board=ideas&limit=25`, { headers: { Authorization: `Bearer ${key}` } })).json()) as { data: { id: number }[] };
    const shown = [...html.matchAll(/\/p\/(\d+)-/g)].map((m) => Number(m[1])).filter((id, i, all) => all.indexOf(id) === i);
    if (JSON.stringify(shown) !== JSON.stringify(listed.data.map((p) => p.id))) throw new Error('the page and the API list do not show the same posts');

    const api: Load = { method: 'GET', path: '/api/v1/posts?board=ideas&limit=25', headers: { Authorization: `Bearer ${key}` }, status: 200 };
    const loads: Record<string, { url: string; load: Load }> = {
      api: { url: chorus.url, load: api },
      page: { url: chorus.url, load: { method: 'GET', path: '/bench/ideas', status: 200 } },
      rendered: { url: chorus.url, load: { method: 'GET', path: '/bench/ideas', headers: { 'Cache-Control': 'no-cache' }, status: 200 } },
      '304': { url: chorus.url, load: { method: 'GET', path: '/bench/ideas', headers: { 'If-None-Match': etag }, status: 304 } },
      ...(before
        ? {
            'api-before': { url: before.url, load: api },
            'page-before': { url: before.url, load: { method: 'GET', path: '/bench/ideas', status: 200 } },
            'rendered-before': { url: before.url, load: { method: 'GET', path: '/bench/ideas', headers: { 'Cache-Control': 'no-cache' }, status: 200 } },
          }
        : {}),
    };
    const only = process.env.BENCH_LOADS?.split(',');
    if (only) for (const name of Object.keys(loads)) if (!only.includes(name)) delete loads[name];
    for (const { url, load } of Object.values(loads)) await checkLoad(url, load);
    log(`generator: ${GENERATOR}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per load`);
    for (const { url, load } of Object.values(loads)) await runLoad(url, load, 2); // warm-up

    const runs: { round: number; name: string; run: Run }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const names = Object.keys(loads);
      // Each round starts with the next load, so that a drift on the machine favours none.
      const order = names.map((_, i) => names[(i + round - 1) % names.length]);
      for (const name of order) {
        const { url, load } = loads[name];
        const result = await runLoad(url, load, SECONDS);
        runs.push({ round, name, run: result });
        log(
          `round ${round} ${name.padEnd(10)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms${result.unexpected ? `  !! ${result.unexpected} errors` : ''}`,
        );
      }
    }

    const of = (name: string) => runs.filter((r) => r.name === name).map((r) => r.run);
    const ratio = (name: string, field: 'rps' | 'p99', to = 'api') => {
      const [a, b] = [of(name), of(to)];
      if (b.length === 0) return NaN;
      return +median(a.map((r, i) => r[field] / b[i][field])).toFixed(2);
    };
    const table = Object.keys(loads).map((name) => ({
      load: name,
      'req/s': Math.round(median(of(name).map((r) => r.rps))),
      'p50 ms': +median(of(name).map((r) => r.p50)).toFixed(1),
      'p99 ms': +median(of(name).map((r) => r.p99)).toFixed(1),
      'req/s ÷ api': ratio(name, 'rps'),
      'p99 ÷ api': ratio(name, 'p99'),
      errors: of(name).reduce((n, r) => n + r.unexpected, 0),
    }));
    log(`\nMedians over ${ROUNDS} rounds (ratios: the median of each round's ratio to the API list)`);
    console.table(table);
    log(`A board page as served: ${bytes.html} bytes of HTML and ${bytes.css} of CSS, ${((bytes.html + bytes.css) / 1024).toFixed(1)} KiB together`);
    log(`Chorus peak RSS: ${peakRssMb(chorus.child.pid!).toFixed(0)} MB`);
    const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
    const errors = table.reduce((n, r) => n + r.errors, 0);
    log(`\nThe public site's targets:`);
    log(`  ${verdict(ratio('page', 'rps') >= 0.9)} board page >= 0.9x the API list's req/s: ${ratio('page', 'rps')}x`);
    log(`  ${verdict(ratio('page', 'p99') <= 1.5)} board page p99 <= 1.5x the API list's: ${ratio('page', 'p99')}x`);
    log(`  (rendered every time: ${ratio('rendered', 'rps')}x the API list's req/s, p99 ${ratio('rendered', 'p99')}x)`);
    log(`  ${verdict(ratio('304', 'rps') >= 3)} 304 revalidation >= 3x the API list's req/s: ${ratio('304', 'rps')}x`);
    log(`  ${verdict(bytes.html + bytes.css < 40 * 1024)} HTML and CSS under 40 KiB: ${((bytes.html + bytes.css) / 1024).toFixed(1)} KiB`);
    log(`  ${verdict(errors === 0)} no errors: ${errors}`);
    if (before) {
      log(`\nAgainst the build before (${BEFORE}), this build's figure over the build before's, the median of the rounds' ratios (req/s below 1 or p99 above 1: this build is slower):`);
      for (const name of ['api', 'page', 'rendered']) {
        if (of(name).length && of(`${name}-before`).length) {
          log(`  ${name.padEnd(9)} req/s ${ratio(name, 'rps', `${name}-before`)}x, p99 ${ratio(name, 'p99', `${name}-before`)}x`);
        }
      }
    }
  } finally {
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
