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
 * The flags Node runs Chorus with, wherever it is started (the Dockerfile, compose.yaml, `npm
 * start`, bench:floor): young-generation semi-spaces of 8 MB instead of V8's 16. Under load a
 * request's objects get promoted whatever the young generation's size (they outlive a scavenge
 * or are held by ones that did), so a larger one buys nothing; the 16 MB it saves pays for
 * `HEAP_GROWING_PERCENT=100`, which costs less CPU than 50 (bench:floor's list: 0.52 against 0.58
 * ms per request, both near 175 MB peak RSS). V8 sizes the young generation as the process
 * starts, so this has to be on the command line.
 */
export const NODE_FLAGS = ['--max-semi-space-size=8'];

/**
 * Keeps the heap near its live data. Under load many of a request's objects are promoted before
 * it ends, and by default V8 lets that garbage pile up to about four times the live heap before a
 * full collection: peak RSS went from 146 MB idle to ~280 MB under `bench:floor`'s list load. At
 * 100% (with NODE_FLAGS) it stays near 180 MB (`HEAP_GROWING_PERCENT`; V8 reads the flag at every
 * collection, so setting it at start works).
 */
export function tuneHeap(config: Pick<AppConfig, 'heapGrowingPercent'>): void {
  if (config.heapGrowingPercent > 0) setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
}
