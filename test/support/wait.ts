import { onCitus } from './citus';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/**
 * How much longer a wait may be on Citus: there every statement takes the coordinator's extra hop,
 * and three PostgreSQL servers share the machine with the tests (loads of 10 to 16 on 2 cores,
 * where a sign-in email took over 20 s to arrive in one run of test:citus). A wait is for
 * something to happen, not a measure of how fast: a test that asserts a time asserts it apart.
 */
const WAIT_SCALE = onCitus() ? 2 : 1;

/**
 * Polls `probe` every `everyMs` until it gives a truthy value, and returns it; fails after
 * `timeoutMs` (twice that on Citus). A probe that asks the API spends the workspace's rate limit:
 * poll it slowly.
 */
export async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 15_000, everyMs = 20): Promise<Truthy<T>> {
  timeoutMs *= WAIT_SCALE;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
