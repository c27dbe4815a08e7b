#!/usr/bin/env node
// `npm run cli -- <command>`: builds first when there is no build or the sources are newer (a
// fresh clone, a pull), then runs dist/src/cli.js in this process. The compiler writes to
// stderr, so that with --json stdout carries the command's one JSON object and nothing else.
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, utimesSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const built = join(root, 'dist', 'src', 'cli.js');
const stamp = join(root, 'dist', '.tsbuildinfo.build');

function newestChange(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

function stale() {
  if (!existsSync(built) || !existsSync(stamp)) return true;
  const sources = ['src', 'migrations', 'ormconfig.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
  return Math.max(...sources.map((s) => newestChange(join(root, s)))) > statSync(stamp).mtimeMs;
}

if (stale()) {
  process.stderr.write('Building Chorus first (npm run build)…\n');
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (build.status !== 0) {
    process.stderr.write('The build failed (see above); the command did not run.\n');
    process.exit(build.status ?? 1);
  }
  // tsc leaves the stamp alone when nothing it emits changed; this build is still current.
  const now = new Date();
  utimesSync(stamp, now, now);
}

require(built);
