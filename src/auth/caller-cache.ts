import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Listener, Notifications } from '../database/listener';
import { Queryable, statement } from '../database/sql';
import type { Caller } from '../common/request-context';

/** Channel on which PostgreSQL announces any change to api_keys or workspaces (see the trigger's migration). */
export const CALLERS_CHANNEL = 'chorus_callers';
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

const ANNOUNCE = statement('callers_notify', `SELECT pg_notify($1, '')`);

/**
 * Announces a committed change to api_keys or workspaces. A trigger announces it already on one
 * server, but Citus's reference tables take no trigger (migrations/…-DistributeByWorkspace.ts):
 * said once more here, it empties the caches once more, which costs a lookup per key.
 */
export async function announceCallersChange(db: Queryable): Promise<void> {
  await db.count(ANNOUNCE, [CALLERS_CHANNEL]);
}

/**
 * Callers by key hash, for a short while, so that a request does not look its key up again.
 *
 * A revocation or plan change must apply everywhere at once, from whichever process makes it
 * (API, CLI, SQL by hand). So every change to api_keys or workspaces fires a NOTIFY (a trigger),
 * every instance LISTENs, and each notification empties the cache. The cache is used only while
 * that LISTEN connection is up: an instance that could miss a notification looks every key up.
 * On the embedded database NOTIFY does not cross connections; there is one process there, and
 * its own changes clear the cache directly (clear()).
 */
@Injectable()
export class CallerCache implements OnApplicationShutdown {
  private readonly entries = new Map<string, { caller: Caller; expiresAt: number }>();
  /** Bumped by every clear: a lookup that began before a change must not store what it read. */
  private generation = 0;
  private listener: Listener | null = null;
  private started = false;

  constructor(private readonly notifications: Notifications) {}

  /** The cached caller of a key hash, or what `load` finds (cached when found). */
  async get(keyHash: string, load: () => Promise<Caller | null>): Promise<Caller | null> {
    if (!this.started) this.start();
    const now = Date.now();
    const hit = this.listening ? this.entries.get(keyHash) : undefined;
    if (hit && hit.expiresAt > now) return hit.caller;
    const generation = this.generation;
    const caller = await load();
    if (caller && this.listening && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(keyHash, { caller, expiresAt: now + TTL_MS });
    }
    return caller;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Listens lazily: only processes that authenticate requests (not the CLI or a worker) hold the connection. */
  private start(): void {
    this.started = true;
    this.listener = this.notifications.listen(
      [CALLERS_CHANNEL],
      { notification: () => this.clear(), onStart: () => this.clear(), whileDown: 'every request looks its key up' },
      'Callers',
    );
  }

  private get listening(): boolean {
    return this.listener?.listening ?? false;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.listener?.stop();
  }
}
