interface Waiter {
  grant(): void;
}

/**
 * A cap on work in flight, shared between keys (workspaces): at most `total` at once and at most
 * `perKey` for any one key. When a slot frees, the keys that wait take turns, so that one key
 * with a long queue of slow work cannot keep the others waiting behind it.
 */
export class FairSlots {
  private inUse = 0;
  private readonly held = new Map<string, number>();
  /** Waiting keys in turn order: a key served goes to the back. */
  private readonly queues = new Map<string, Waiter[]>();

  constructor(
    readonly total: number,
    readonly perKey: number,
  ) {
    if (!(total >= 1 && perKey >= 1)) throw new Error('FairSlots needs at least one slot');
  }

  /** Slots in use now, for one key or for all. */
  used(key?: string): number {
    return key === undefined ? this.inUse : (this.held.get(key) ?? 0);
  }

  /** Callers waiting for a slot now, for one key or for all. */
  waiting(key?: string): number {
    if (key !== undefined) return this.queues.get(key)?.length ?? 0;
    let count = 0;
    for (const queue of this.queues.values()) count += queue.length;
    return count;
  }

  /**
   * Waits for a slot for `key` and answers the function that gives it back. Rejects with the
   * signal's reason if the signal aborts first; the slot is then never taken.
   */
  acquire(key: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.inUse < this.total && this.used(key) < this.perKey) return Promise.resolve(this.take(key));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(this.take(key));
        },
      };
      const onAbort = () => {
        const queue = this.queues.get(key);
        const at = queue?.indexOf(waiter) ?? -1;
        if (queue && at >= 0) {
          queue.splice(at, 1);
          if (queue.length === 0) this.queues.delete(key);
        }
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const queue = this.queues.get(key);
      if (queue) queue.push(waiter);
      else this.queues.set(key, [waiter]);
    });
  }

  private take(key: string): () => void {
    this.inUse += 1;
    this.held.set(key, this.used(key) + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.inUse -= 1;
      const left = this.used(key) - 1;
      if (left > 0) this.held.set(key, left);
      else this.held.delete(key);
      this.grantWaiting();
    };
  }

  private grantWaiting(): void {
    while (this.inUse < this.total) {
      let next: string | undefined;
      for (const key of this.queues.keys()) {
        if (this.used(key) < this.perKey) {
          next = key;
          break;
        }
      }
      if (next === undefined) return;
      const queue = this.queues.get(next)!;
      const waiter = queue.shift()!;
      this.queues.delete(next);
      if (queue.length > 0) this.queues.set(next, queue);
      waiter.grant();
    }
  }
}
