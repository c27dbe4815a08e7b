import { createHash } from 'node:crypto';
import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { CALLERS_CHANNEL } from '../../auth/caller-cache';
import { Listener, Notifications } from '../../database/listener';
import { SITE_CHANNEL } from '../../outbox/events.store';

const MAX_VALIDATORS = 10_000;
const MAX_WORKSPACES = 10_000;
/** The most bytes of rendered pages one instance keeps (about 350 board pages). */
const MAX_KEPT_BYTES = 8 * 1024 * 1024;

/** A public page as it was sent: its validator, and its bytes while they fit in the budget. */
export interface SentPage {
  etag: string;
  body: Buffer | null;
  type: string;
  headers: Record<string, string>;
}

/** A page's validator: a hash of the bytes sent. */
export const etagOf = (body: Buffer) => `"${createHash('sha1').update(body).digest('base64url')}"`;

/** Whether an If-None-Match header names this validator (weak comparison, as RFC 9110 asks for it). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * What this instance knows of public pages without reading them again, for visitors without a
 * session:
 * - each workspace's version: a count of the changes to what its pages show (posts, votes,
 *   comments, boards, names) announced on `chorus_site` at commit, from whichever process made
 *   them (SITE_CHANNEL);
 * - the validator (ETag) each page address was last sent with, its bytes, and the version it was
 *   rendered at: while that version holds, a revalidation is answered 304 and a request sent
 *   those bytes, without reading or rendering anything (unless the visitor asks for a fresh
 *   copy with `Cache-Control: no-cache`, as a browser's hard reload does);
 * - workspaces by slug (a change to the workspaces table is announced on `chorus_callers`,
 *   which also makes every page stale).
 * All of it is trusted only while the LISTEN connection is up; meanwhile (and always on the
 * embedded database, where NOTIFY does not cross connections) every page is rendered and its
 * hash compared, so a 304 is still right, only not free. A page's version is read before
 * anything it shows, so a change committed while it renders makes it stale rather than wrongly
 * fresh. Between a commit and its announcement reaching this instance (about a millisecond), a
 * revalidation may still be answered 304.
 */
@Injectable()
export class PageCache implements OnModuleInit, OnApplicationShutdown {
  private readonly versions = new Map<string, number>();
  private readonly sent = new Map<string, SentPage & { workspaceId: string; version: string }>();
  private keptBytes = 0;
  private readonly workspaces = new Map<string, unknown>();
  private readonly reads = new Map<string, { version: string; value: unknown }>();
  private epoch = 0;
  private listener: Listener | null = null;

  constructor(private readonly notifications: Notifications) {}

  onModuleInit(): void {
    this.listener = this.notifications.listen(
      [SITE_CHANNEL, CALLERS_CHANNEL],
      {
        notification: (channel, workspaceId) => (channel === SITE_CHANNEL ? this.changed(workspaceId) : this.forgetAll()),
        onStart: () => this.forgetAll(),
        whileDown: 'every page is rendered to be revalidated',
      },
      'Pages',
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.listener?.stop();
  }

  private get listening(): boolean {
    return this.listener?.listening ?? false;
  }

  private changed(workspaceId: string): void {
    if (!this.versions.has(workspaceId) && this.versions.size >= MAX_WORKSPACES) this.forgetAll();
    this.versions.set(workspaceId, (this.versions.get(workspaceId) ?? 0) + 1);
  }

  private forgetAll(): void {
    this.epoch++;
    this.versions.clear();
    this.sent.clear();
    this.keptBytes = 0;
    this.workspaces.clear();
    this.reads.clear();
  }

  /** The workspace's pages' version now; null while changes could go unheard. */
  version(workspaceId: string): string | null {
    return this.listening ? `${this.epoch}.${this.versions.get(workspaceId) ?? 0}` : null;
  }

  /** The page last sent at this address, while nothing it shows has changed since; else null. */
  current(address: string): SentPage | null {
    if (!this.listening) return null;
    const known = this.sent.get(address);
    return known && this.version(known.workspaceId) === known.version ? known : null;
  }

  /** Remembers a page as sent (its bytes too, within the budget), rendered at `version` (read before its content). */
  remember(address: string, workspaceId: string, version: string | null, page: SentPage): void {
    if (version === null || version !== this.version(workspaceId)) return;
    this.forget(address);
    const body = page.body && page.body.length <= MAX_KEPT_BYTES / 64 ? page.body : null;
    while (this.sent.size > 0 && (this.sent.size >= MAX_VALIDATORS || this.keptBytes + (body?.length ?? 0) > MAX_KEPT_BYTES)) {
      this.forget(this.sent.keys().next().value!);
    }
    this.sent.set(address, { ...page, body, workspaceId, version });
    this.keptBytes += body?.length ?? 0;
  }

  private forget(address: string): void {
    const known = this.sent.get(address);
    if (!known) return;
    this.keptBytes -= known.body?.length ?? 0;
    this.sent.delete(address);
  }

  /**
   * What `load` reads of a workspace (a public board by slug, its boards with their counts), kept
   * while the workspace's pages stay at `version` (read before, as for a page); read afresh after
   * any change to them, and every time while changes could go unheard.
   */
  async read<T>(workspaceId: string, version: string | null, what: string, load: () => Promise<T>): Promise<T> {
    const key = `${workspaceId} ${what}`;
    const kept = this.reads.get(key);
    if (version !== null && kept?.version === version && this.version(workspaceId) === version) return kept.value as T;
    const value = await load();
    if (version !== null && version === this.version(workspaceId)) {
      if (this.reads.size >= MAX_VALIDATORS) this.reads.delete(this.reads.keys().next().value!);
      this.reads.set(key, { version, value });
    }
    return value;
  }

  /** A workspace by slug, as `load` found it, kept while this instance hears of changes to workspaces. */
  async workspace<T>(slug: string, load: () => Promise<T | null>): Promise<T | null> {
    if (this.listening && this.workspaces.has(slug)) return this.workspaces.get(slug) as T | null;
    const epoch = this.epoch;
    const found = await load();
    if (found && this.listening && epoch === this.epoch) {
      if (this.workspaces.size >= MAX_WORKSPACES) this.workspaces.clear();
      this.workspaces.set(slug, found);
    }
    return found;
  }
}
