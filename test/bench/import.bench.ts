/**
 * Import and export at scale: 100,000 posts, 1,000,000 votes and 200,000 comments from CSV files
 * into an empty workspace on a fresh PostgreSQL database, then the export of the result. Each
 * runs as the operator runs it, `chorus import` and `chorus export` in a process of their own;
 * the bench prints rows per second and each process's peak RSS (VmHWM, read from /proc while it
 * runs), and the machine's load average. `BENCH_POSTS` (100000) scales the three together;
 * `BENCH_CLI_NODE_FLAGS` gives the CLI's processes node flags.
 * - BENCH_BEFORE: an earlier build's dist/src/main.js (or its cli.js; a worktree at an older
 *   commit, built): its CLI and this one import (and export) alternately, each into a fresh
 *   database, BENCH_ROUNDS times (3), and the bench prints each round and the medians.
 * - BENCH_CSV_DIR: where the CSV files are made, and kept (made again only if missing), to
 *   iterate without making them each time.
 * - BENCH_EXPORT=false: the import alone.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, WriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { freshDatabase, log } from './support';

const POSTS = Number(process.env.BENCH_POSTS ?? 100_000);
const VOTES_PER_POST = 10;
const COMMENTS_PER_POST = 2;
const VOTERS = Math.max(VOTES_PER_POST * 10, POSTS / 2);
const BOARDS = ['ideas', 'bugs', 'integrations', 'mobile', 'billing'];
const CLI = join(__dirname, '..', '..', 'src', 'cli.js');
const BEFORE = process.env.BENCH_BEFORE ? join(dirname(resolve(process.env.BENCH_BEFORE)), 'cli.js') : undefined;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (BEFORE ? 3 : 1));
const CSV_DIR = process.env.BENCH_CSV_DIR;
const EXPORT = process.env.BENCH_EXPORT !== 'false';
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
  if (CSV_DIR && Object.values(files).every((f) => existsSync(f))) return files;
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
async function timedCli(args: string[], env: Record<string, string>, cli = CLI): Promise<{ seconds: number; peakRssMb: number; stdout: string }> {
  const started = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, cli, ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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

interface Figures {
  importRowsPerS: number;
  importRssMb: number;
  exportRowsPerS: number;
  exportRssMb: number;
}

/** One import (and export) by one build's CLI, into a fresh database of its own. */
async function importOnce(cli: string, label: string, files: { posts: string; votes: string; comments: string }, dir: string): Promise<Figures> {
  const database = await freshDatabase(`chorus_bench_import_${process.pid}`);
  const env: Record<string, string> = { DATABASE_URL: database.url, ENCRYPTION_KEY: '5e'.repeat(32), BASE_URL: 'https://chorus.bench' };
  try {
    await timedCli(['workspace', 'create', '--name', 'Bench', '--slug', 'bench', '--plan', 'business'], env, cli);
    const load = loadavg().map((l) => l.toFixed(2)).join(' ');
    const imported = await timedCli(
      ['import', '--workspace', 'bench', '--posts', files.posts, '--votes', files.votes, '--comments', files.comments, '--json'],
      env,
      cli,
    );
    const report = JSON.parse(imported.stdout);
    const rows = report.created.posts + report.created.votes + report.created.comments;
    if (report.errors.length) throw new Error(`The import reported ${report.errors.length} errors: ${JSON.stringify(report.errors.slice(0, 3))}`);
    const figures: Figures = { importRowsPerS: rows / imported.seconds, importRssMb: imported.peakRssMb, exportRowsPerS: NaN, exportRssMb: NaN };
    log(
      `${label} import: ${rows.toLocaleString('en')} rows (and ${report.created.people.toLocaleString('en')} people) in ${imported.seconds.toFixed(1)} s: ` +
        `${Math.round(figures.importRowsPerS).toLocaleString('en')} rows/s, peak RSS ${imported.peakRssMb.toFixed(0)} MB (load average before: ${load})`,
    );
    if (EXPORT) {
      const out = join(dir, 'export.tar.gz');
      const exported = await timedCli(['export', '--workspace', 'bench', '--out', out, '--json'], env, cli);
      const counts = JSON.parse(exported.stdout).counts as Record<string, number>;
      const records = Object.values(counts).reduce((a, b) => a + b, 0);
      figures.exportRowsPerS = records / exported.seconds;
      figures.exportRssMb = exported.peakRssMb;
      log(
        `${label} export: ${records.toLocaleString('en')} records (${((await stat(out)).size / 1e6).toFixed(0)} MB gzipped) in ${exported.seconds.toFixed(1)} s: ` +
          `${Math.round(figures.exportRowsPerS).toLocaleString('en')} rows/s, peak RSS ${exported.peakRssMb.toFixed(0)} MB`,
      );
      await rm(out, { force: true });
    }
    return figures;
  } finally {
    await database.drop();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function summary(label: string, runs: Figures[]): string {
  const f = (key: keyof Figures, digits = 0) => median(runs.map((r) => r[key])).toLocaleString('en', { maximumFractionDigits: digits });
  return (
    `${label}: import ${f('importRowsPerS')} rows/s (peak RSS ${f('importRssMb')} MB)` +
    (EXPORT ? `, export ${f('exportRowsPerS')} rows/s (peak RSS ${f('exportRssMb')} MB)` : '') +
    ` — medians of ${runs.length}: ${runs.map((r) => Math.round(r.importRowsPerS).toLocaleString('en')).join(', ')} import rows/s`
  );
}

async function main(): Promise<void> {
  const dir = CSV_DIR ?? (await mkdtemp(join(tmpdir(), 'chorus-bench-import-')));
  await mkdir(dir, { recursive: true });
  try {
    log(`Making CSV files: ${POSTS.toLocaleString('en')} posts, ${(POSTS * VOTES_PER_POST).toLocaleString('en')} votes, ${(POSTS * COMMENTS_PER_POST).toLocaleString('en')} comments…`);
    const files = await makeFiles(dir);
    const sizes = await Promise.all(Object.values(files).map(async (f) => (await stat(f)).size));
    log(`CSV: ${(sizes.reduce((a, b) => a + b, 0) / 1e6).toFixed(0)} MB`);
    const after: Figures[] = [];
    const before: Figures[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternately first, so that neither is always the one on a warmer (or busier) machine.
      const order: ('before' | 'after')[] = BEFORE ? (round % 2 ? ['after', 'before'] : ['before', 'after']) : ['after'];
      for (const which of order) {
        if (which === 'before') before.push(await importOnce(BEFORE!, `round ${round + 1} before`, files, dir));
        else after.push(await importOnce(CLI, BEFORE ? `round ${round + 1} after` : `round ${round + 1}`, files, dir));
      }
    }
    if (BEFORE) log(summary(`before (${BEFORE})`, before));
    log(summary(BEFORE ? 'after' : 'this build', after));
    log(`load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    if (!CSV_DIR) await rm(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
