export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/**
 * Polls `probe` every `everyMs` until it gives a truthy value, and returns it; fails after
 * `timeoutMs`. A probe that asks the API spends the workspace's rate limit: poll it slowly.
 */
export async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 15_000, everyMs = 20): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
