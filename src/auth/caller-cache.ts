import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { DATABASE_TARGET, DatabaseTarget } from '../database/database';
import type { Caller } from '../common/request-context';

/** Channel on which PostgreSQL announces any change to api_keys or workspaces (see the trigger's migration). */
export const CALLERS_CHANNEL = 'chorus_callers';
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

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
  private readonly logger = new Logger('Callers');
  private readonly entries = new Map<string, { caller: Caller; expiresAt: number }>();
  /** Bumped by every clear: a lookup that began before a change must not store what it read. */
  private generation = 0;
  private listener: Client | null = null;
  private listening = false;
  private started = false;
  private stopped = false;

  constructor(@Inject(DATABASE_TARGET) private readonly database: DatabaseTarget) {}

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
    if (!this.database.embedded) void this.listen();
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.database.url });
    let failed = false;
    const retry = (why: string) => {
      if (failed) return;
      failed = true;
      this.listening = false;
      this.clear();
      if (this.listener === client) this.listener = null;
      void client.end().catch(() => {});
      if (this.stopped) return;
      this.logger.warn(`Not listening for key changes (${why}): every request looks its key up until it is back.`);
      setTimeout(() => void this.listen(), 1_000).unref();
    };
    client.on('notification', () => this.clear());
    client.on('error', (error) => retry(error.message));
    client.on('end', () => this.listener === client && retry('connection closed'));
    try {
      await client.connect();
      await client.query(`LISTEN ${CALLERS_CHANNEL}`);
      if (this.stopped) return void client.end().catch(() => {});
      this.listener = client;
      this.clear(); // whatever changed while nobody listened
      this.listening = true;
    } catch (error) {
      retry((error as Error).message);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.listening = false;
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => {});
  }
}
