/**
 * Import and export at scale: 100,000 posts, 1,000,000 votes and 200,000 comments from CSV files
 * into an empty workspace on a fresh PostgreSQL database, then the export of the result. Each
 * runs as the operator runs it, `chorus import` and `chorus export` in a process of their own;
 * the bench prints rows per second and each process's peak RSS (VmHWM, read from /proc while it
 * runs), and the machine's load average. `BENCH_POSTS` (100000) scales the three together;
 * `BENCH_CLI_NODE_FLAGS` gives the CLI's processes node flags.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, WriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, log } from './support';

const POSTS = Number(process.env.BENCH_POSTS ?? 100_000);
const VOTES_PER_POST = 10;
const COMMENTS_PER_POST = 2;
const VOTERS = Math.max(VOTES_PER_POST * 10, POSTS / 2);
const BOARDS = ['ideas', 'bugs', 'integrations', 'mobile', 'billing'];
const CLI = join(__dirname, '..', '..', 'src', 'cli.js');
/** Node's flags for the CLI's processes: `--max-old-space-size=80` (how much of the RSS is live), `--cpu-prof`. */
const NODE_FLAGS = (process.env.BENCH_CLI_NODE_FLAGS ?? '').split(' ').filter(Boolean);

async function write(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

async function csv(path: string, header: string, rows: (i: number) => string, count: number): Promise<void> {
  const out = createWriteStream(path);
  await write(out, `${header}\n`);
  let chunk = '';
  for (let i = 0; i < count; i++) {
    chunk += rows(i);
    if (chunk.length > 1 << 16) {
      await write(out, chunk);
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'close');
}

const day = (i: number) => new Date(Date.UTC(2021, 0, 1) + i * 60_000).toISOString();

async function makeFiles(dir: string): Promise<{ posts: string; votes: string; comments: string }> {
  const files = { posts: join(dir, 'posts.csv'), votes: join(dir, 'votes.csv'), comments: join(dir, 'comments.csv') };
  await csv(
    files.posts,
    'id,board,title,body,status,author_email,author_name,created_at',
    (i) =>
      `${i + 1},${BOARDS[i % BOARDS.length]},"Idea number ${i + 1}, from the spreadsheet","Why it matters:\n""customer ${i % 997}"" asked for it twice",` +
      `${['open', 'under review', 'planned', 'in progress', 'complete', 'closed'][i % 6]},author${i % 5_000}@bench.example,Author ${i % 5_000},${day(i)}\n`,
    POSTS,
  );
  // Each post's voters are ten different people: one from each of ten blocks of the voters.
  const block = Math.floor(VOTERS / VOTES_PER_POST);
  await csv(
    files.votes,
    'post_id,voter_email,voter_name,created_at',
    (n) => {
      const post = Math.floor(n / VOTES_PER_POST);
      const voter = (n % VOTES_PER_POST) * block + (post % block);
      return `${post + 1},voter${voter}@bench.example,Voter ${voter},${day(post + 1)}\n`;
    },
    POSTS * VOTES_PER_POST,
  );
  await csv(
    files.comments,
    'post_id,author_email,author_name,body,official,created_at',
    (n) => {
      const post = Math.floor(n / COMMENTS_PER_POST);
      return `${post + 1},voter${n % VOTERS}@bench.example,Voter ${n % VOTERS},"Comment ${n}, with a comma",${n % 2 === 0},${day(post + 2)}\n`;
    },
    POSTS * COMMENTS_PER_POST,
  );
  return files;
}

/** Runs the CLI to its end: how long it took, its peak RSS, and what it printed. */
async function timedCli(args: string[], env: Record<string, string>): Promise<{ seconds: number; peakRssMb: number; stdout: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, CLI, ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  let peakKb = 0;
  const poll = setInterval(async () => {
    try {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // ended
    }
  }, 50);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(poll);
  if (code !== 0) throw new Error(`chorus ${args.join(' ')} exited ${code}:\n${stderr}`);
  return { seconds: (performance.now() - started) / 1_000, peakRssMb: peakKb / 1024, stdout };
}

async function main(): Promise<void> {
  const database = await freshDatabase(`chorus_bench_import_${process.pid}`);
  const dir = await mkdtemp(join(tmpdir(), 'chorus-bench-import-'));
  const env: Record<string, string> = { DATABASE_URL: database.url, ENCRYPTION_KEY: '5e'.repeat(32), BASE_URL: 'https://chorus.bench' };
  try {
    log(`Making CSV files: ${POSTS.toLocaleString('en')} posts, ${(POSTS * VOTES_PER_POST).toLocaleString('en')} votes, ${(POSTS * COMMENTS_PER_POST).toLocaleString('en')} comments…`);
    const files = await makeFiles(dir);
    const sizes = await Promise.all(Object.values(files).map(async (f) => (await stat(f)).size));
    log(`CSV: ${(sizes.reduce((a, b) => a + b, 0) / 1e6).toFixed(0)} MB`);
    await timedCli(['workspace', 'create', '--name', 'Bench', '--slug', 'bench', '--plan', 'business'], env);

    const load = loadavg().map((l) => l.toFixed(2)).join(' ');
    const imported = await timedCli(
      ['import', '--workspace', 'bench', '--posts', files.posts, '--votes', files.votes, '--comments', files.comments, '--json'],
      env,
    );
    const report = JSON.parse(imported.stdout);
    const rows = report.created.posts + report.created.votes + report.created.comments;
    if (report.errors.length) throw new Error(`The import reported ${report.errors.length} errors: ${JSON.stringify(report.errors.slice(0, 3))}`);
    log(`load average before the import: ${load}`);
    log(
      `import: ${rows.toLocaleString('en')} rows (and ${report.created.people.toLocaleString('en')} people) in ${imported.seconds.toFixed(1)} s: ` +
        `${Math.round(rows / imported.seconds).toLocaleString('en')} rows/s, peak RSS ${imported.peakRssMb.toFixed(0)} MB`,
    );

    const out = join(dir, 'export.tar.gz');
    const exported = await timedCli(['export', '--workspace', 'bench', '--out', out, '--json'], env);
    const counts = JSON.parse(exported.stdout).counts as Record<string, number>;
    const records = Object.values(counts).reduce((a, b) => a + b, 0);
    log(
      `export: ${records.toLocaleString('en')} records (${((await stat(out)).size / 1e6).toFixed(0)} MB gzipped) in ${exported.seconds.toFixed(1)} s: ` +
        `${Math.round(records / exported.seconds).toLocaleString('en')} rows/s, peak RSS ${exported.peakRssMb.toFixed(0)} MB`,
    );
    log(`load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await database.drop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
