import { setFlagsFromString } from 'node:v8';
import { AppConfig, ConfigError } from './config/app-config';
import { DataDirInUseError } from './database/embedded-postgres';

/** A failure the operator can act on gets one clear line; anything else, its stack. */
export function exitOnStartupError(error: unknown, what = 'Chorus could not start'): never {
  if (error instanceof ConfigError || error instanceof DataDirInUseError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`${what}: ${error instanceof Error ? error.stack : String(error)}\n`);
  }
  process.exit(1);
}

/**
 * Keeps the heap near its live data. Under load most of a request's objects are promoted before
 * it ends, and by default V8 lets that garbage pile up to about four times the live heap before a
 * full collection: peak RSS went from 146 MB idle to ~280 MB under `bench:floor`'s list load. At
 * 50% it stayed near 170 MB for the same CPU per request; at 30%, with the young generation capped
 * by `--max-semi-space-size=8` at launch (docs/operating.md, "Memory"), near 155 MB (`HEAP_GROWING_PERCENT`;
 * V8 reads this flag at every collection, so setting it at start works; the young generation's
 * size is fixed when the heap is made, so that one must be a launch flag).
 *
 * And no allocation-site pretenuring: V8 allocates straight in the old generation the objects of
 * an allocation site whose objects mostly survived a collection, and keeps that decision. Under
 * load (in two runs, at about the 1,050th query, as load met a cold process) it pretenured
 * pg's `rows = []` (every query's rows array) and a list's parameters array: each page's rows
 * hung from an old array, survived every young collection, were promoted and filled the old
 * generation, and a list cost ~480 µs of CPU instead of ~360, with a full collection every
 * 0.4 s instead of every 1.5 to 3 s (docs/performance.md, issue 30). V8 reads the flag when it
 * would decide or compile, so setting it at start works; the decisions already taken while the
 * modules loaded stay.
 */
export function tuneHeap(config: Pick<AppConfig, 'heapGrowingPercent'>): void {
  if (config.heapGrowingPercent > 0) setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
  setFlagsFromString('--no-allocation-site-pretenuring');
}
