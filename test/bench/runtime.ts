/**
 * How a built Chorus runs in production, for the benches to start it the same way: the node
 * flags of package.json's `start:prod` (the image sets the same in NODE_OPTIONS) and the
 * environment the image sets beside them (docs/operating.md, "Memory"; test/node-flags.spec.ts holds the
 * three together).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** glibc's malloc arenas: 2 rather than 8 per core (threads' allocations share them). */
export const RUNTIME_ENV = { MALLOC_ARENA_MAX: '2' } as const;

/** start:prod's node flags, as one string (what `chorusNodeArgs` takes). */
export function productNodeFlags(): string {
  const startProd: string = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')).scripts['start:prod'];
  return startProd.split(' ').filter((word) => word.startsWith('--')).join(' ');
}

/**
 * start:prod's node flags, then CHORUS_NODE_OPTIONS (e.g. `--cpu-prof`). `flags` (by default
 * BENCH_NODE_FLAGS, "" for none) replaces start:prod's, to measure other settings.
 */
export function chorusNodeArgs(flags = process.env.BENCH_NODE_FLAGS): string[] {
  return [...(flags ?? productNodeFlags()).split(' '), ...(process.env.CHORUS_NODE_OPTIONS ?? '').split(' ')].filter(Boolean);
}

/** `K=V K=V` as an environment (BENCH_CHORUS_ENV and the like), to compare settings in one run. */
export const envOf = (pairs = ''): Record<string, string> =>
  Object.fromEntries(pairs.split(' ').filter(Boolean).map((pair) => pair.split('=', 2)));

/** RUNTIME_ENV, then BENCH_CHORUS_ENV's changes (e.g. `MALLOC_ARENA_MAX=8`). */
export const chorusEnv = (pairs = process.env.BENCH_CHORUS_ENV): Record<string, string> => ({ ...RUNTIME_ENV, ...envOf(pairs) });
