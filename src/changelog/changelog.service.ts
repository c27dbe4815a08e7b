import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Page, pageOf } from '../common/page.query';
import { SecretBox } from '../common/secret-box';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Links } from '../config/links';
import { Database, Queryable, Tx } from '../database/sql';
import { changelogEmail } from '../notifications/changelog-email';
import { unsubscribeUrl } from '../notifications/unsubscribe-token';
import { EventsStore } from '../outbox/events.store';
import { MailingBatch, runMailings } from '../outbox/mailing';
import { EmailToQueue, OutboxDeliveries } from '../outbox/outbox-deliveries.service';
import type { Actor, Reader } from '../posts/posts.service';
import { CHANGELOG_PUBLISHED, EntryState, EntryType } from './changelog-entry';
import { ChangelogEntryResponse, ExportedEntry, toEntryResponse, toExportedEntry } from './changelog.mapper';
import { ChangelogStore, EntryRow, ImportedEntry, LinkedPostRow } from './changelog.store';

export interface NewEntry {
  title: string;
  body?: string;
  type: EntryType;
  post_ids?: number[];
  /** A past or present time publishes now; a future one schedules. */
  publish_at?: Date;
}

export interface EntryPatch {
  title?: string;
  body?: string;
  type?: EntryType;
  post_ids?: number[];
  /** null: a scheduled entry becomes a draft again. Ignored on a published entry. */
  publish_at?: Date | null;
}

export interface EntryPage {
  data: ChangelogEntryResponse[];
  has_more: boolean;
  next_offset: number | null;
}

/** Addresses per batch of a publish's emails: each batch is one transaction. */
export const MAIL_BATCH = 500;

/**
 * The changelog: entries with their linked posts, publishing (now, or when due, once), and the
 * emails of a publish, made in batches by the outbox processor (see `runJobs`).
 */
@Injectable()
export class ChangelogService {
  /** Addresses per batch (MAIL_BATCH; a test makes batches small to see several). */
  batchSize = MAIL_BATCH;

  constructor(
    private readonly db: Database,
    private readonly store: ChangelogStore,
    private readonly events: EventsStore,
    private readonly deliveries: OutboxDeliveries,
    private readonly links: Links,
    private readonly box: SecretBox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(reader: Reader, filter: { state?: EntryState } & Page): Promise<EntryPage> {
    const rows = await this.store.list(reader.workspaceId, filter);
    const page = pageOf(rows, filter);
    return { ...page, data: await this.withPosts(this.db, reader, page.data) };
  }

  async get(reader: Reader, id: number, q: Queryable = this.db): Promise<ChangelogEntryResponse> {
    const row = await this.store.get(q, reader.workspaceId, id);
    if (!row) throw AppError.notFound('changelog entry');
    return (await this.withPosts(q, reader, [row]))[0];
  }

  async create(actor: Actor, input: NewEntry): Promise<ChangelogEntryResponse> {
    return this.db.transaction(async (tx) => {
      const postIds = await this.checkPosts(tx, actor.workspaceId, input.post_ids);
      const now = input.publish_at !== undefined && input.publish_at.getTime() <= Date.now();
      const id = await this.store.insert(tx, actor.workspaceId, {
        title: input.title,
        body: input.body ?? '',
        type: input.type,
        publishAt: now ? null : (input.publish_at ?? null),
        createdBy: actor.personId,
      });
      if (postIds.length > 0) this.store.setLinks(tx, actor.workspaceId, id, postIds);
      if (now) return (await this.publishIn(tx, actor, id, actor.personId, true))!;
      return this.get(actor, id, tx);
    });
  }

  async update(actor: Actor, id: number, patch: EntryPatch): Promise<ChangelogEntryResponse> {
    return this.db.transaction(async (tx) => {
      const row = await this.store.lock(tx, actor.workspaceId, id);
      if (!row) throw AppError.notFound('changelog entry');
      const postIds = patch.post_ids === undefined ? undefined : await this.checkPosts(tx, actor.workspaceId, patch.post_ids);
      const published = row.state === 'published';
      const publishAt = published ? undefined : patch.publish_at;
      const now = publishAt != null && publishAt.getTime() <= Date.now();
      this.store.update(tx, actor.workspaceId, id, {
        title: patch.title,
        body: patch.body,
        type: patch.type,
        publishAt: now ? undefined : publishAt,
        by: actor.personId,
      });
      if (postIds !== undefined) this.store.setLinks(tx, actor.workspaceId, id, postIds);
      if (published) this.events.announceSiteChange(tx, actor.workspaceId); // its pages changed
      if (now) return (await this.publishIn(tx, actor, id, actor.personId, true))!;
      return this.get(actor, id, tx);
    });
  }

  async delete(actor: Actor, id: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      if ((await this.store.delete(tx, actor.workspaceId, id)) === 0) throw AppError.notFound('changelog entry');
      this.events.announceSiteChange(tx, actor.workspaceId);
    });
  }

  /** Publishes now; an entry already published is answered unchanged. */
  async publish(actor: Actor, id: number): Promise<ChangelogEntryResponse> {
    return this.db.transaction(async (tx) => {
      const row = await this.store.lock(tx, actor.workspaceId, id);
      if (!row) throw AppError.notFound('changelog entry');
      return (await this.publishIn(tx, actor, id, actor.personId, true)) ?? this.get(actor, id, tx);
    });
  }

  /**
   * Publishes the entry in `tx` unless it is published already (or, `now` false, not due):
   * `published_at`, the event `changelog.published` with the entry, and its emails to be made
   * (the processor makes them in batches). Answers the entry, or null when nothing was done.
   */
  private async publishIn(tx: Tx, reader: Reader, id: number, publisherId: string | null, now: boolean): Promise<ChangelogEntryResponse | null> {
    const published = await this.store.publish(tx, reader.workspaceId, id, publisherId, now);
    if (!published) return null;
    const entry = await this.get(reader, id, tx);
    await this.events.record(tx, reader.workspaceId, CHANGELOG_PUBLISHED, { entry }, published.publisher_id);
    return entry;
  }

  /**
   * The outbox processor's part: publishes the scheduled entries that are due (each once,
   * whichever processor gets there first), then makes a batch of emails of each entry whose
   * emails are still being made, up to `batches` batches. Answers whether more batches wait.
   */
  async runJobs(batches = 20): Promise<boolean> {
    for (const due of await this.store.due(50)) {
      await this.db.transaction(async (tx) => {
        // The publisher: who set publish_at (kept on the row).
        await this.publishIn(tx, { workspaceId: due.workspace_id, workspaceSlug: due.workspace_slug }, Number(due.id), null, false);
      });
    }
    return runMailings(await this.store.mailing(batches), batches, (entry) => this.mailBatch(entry.workspace_id, Number(entry.id)));
  }

  /**
   * One batch of an entry's emails, in one transaction: the next MAIL_BATCH addresses of its
   * audience after the last one queued, queued through the outbox (which meters them with
   * voter email's hourly limit), and where the batches stand. Answers 'more' when batches are
   * left, 'done' after the last one, 'held' when another processor holds the entry (or it is
   * done already). (The next batch begins after the last
   * address of this one: no batch holds more than `batchSize` addresses, in memory or in a
   * transaction.)
   */
  private async mailBatch(workspaceId: string, id: number): Promise<MailingBatch> {
    return this.db.transaction(async (tx) => {
      const entry = await this.store.lockMailing(tx, workspaceId, id);
      if (!entry) return 'held';
      if (entry.plan === 'free') {
        this.store.mailed(tx, workspaceId, id, null);
        return 'done';
      }
      const audience = await this.store.audience(tx, workspaceId, id, entry.mail_after, entry.publisher_id, this.batchSize);
      if (audience.length > 0) {
        const posts = await this.store.linked(tx, workspaceId, [id]);
        const byId = new Map(posts.map((post) => [post.id, post]));
        const url = this.links.changelogEntry(entry.workspace_slug, id, entry.title);
        const emails: EmailToQueue[] = audience.map((person) => ({
          workspaceId,
          recipient: person.email,
          eventId: entry.mail_event_id,
          eventType: CHANGELOG_PUBLISHED,
          body: JSON.stringify(
            changelogEmail({
              to: person.email,
              workspaceName: entry.workspace_name,
              entry: { title: entry.title, url },
              voted: person.post_ids
                .map((postId) => byId.get(postId))
                .filter((post): post is LinkedPostRow => post !== undefined)
                .map((post) => ({ title: post.title, url: this.links.post(entry.workspace_slug, post.board_slug, Number(post.id), post.title) })),
              unsubscribeUrl: this.unsubscribeUrl(workspaceId, person.email),
            }),
          ),
        }));
        this.deliveries.queueEmails(tx, emails);
      }
      const done = audience.length < this.batchSize;
      this.store.mailed(tx, workspaceId, id, done ? null : audience[audience.length - 1].email);
      return done ? 'done' : 'more';
    });
  }

  // -- The public site --------------------------------------------------------------------

  /**
   * A page of published entries, newest first, as the public site shows them: their `posts`
   * only those on public boards (a private post is never named there).
   */
  async listPublished(reader: Reader, page: Page): Promise<EntryPage> {
    const rows = await this.store.list(reader.workspaceId, { state: 'published', ...page });
    const cut = pageOf(rows, page);
    return { ...cut, data: await this.withPosts(this.db, reader, cut.data, true) };
  }

  /** A published entry as the public site shows it (drafts, scheduled and deleted ones: 404). */
  async getPublished(reader: Reader, id: number): Promise<ChangelogEntryResponse> {
    const row = await this.store.get(this.db, reader.workspaceId, id);
    if (!row || row.state !== 'published') throw AppError.notFound('changelog entry');
    return (await this.withPosts(this.db, reader, [row], true))[0];
  }

  /** The entries linking a post: for the public site, published ones only. */
  async linking(reader: Reader, postId: number, publishedOnly: boolean): Promise<ChangelogEntryResponse[]> {
    const rows = await this.store.linking(reader.workspaceId, postId, publishedOnly);
    return this.withPosts(this.db, reader, rows, publishedOnly);
  }

  isSubscribed(workspaceId: string, personId: string): Promise<boolean> {
    return this.store.isSubscribed(workspaceId, personId);
  }

  setSubscribed(workspaceId: string, personId: string, on: boolean): Promise<void> {
    return this.store.setSubscribed(workspaceId, personId, on);
  }

  // -- Export and import (src/transfer), in the caller's transaction -----------------------

  /**
   * A page of the workspace's entries, every state, in ascending id order after `after`, as an
   * export writes them (the API's entry with `post_ids`). `q`: the export's snapshot.
   */
  async exportPage(q: Queryable, workspace: { id: string; slug: string }, after: number | null, limit: number): Promise<ExportedEntry[]> {
    const rows = await this.store.exportPage(q, workspace.id, after === null ? null : String(after), limit);
    return rows.map((row) => toExportedEntry(row, workspace.slug, this.links));
  }

  /**
   * Entries brought in by an import, in the state they had: a published one keeps its
   * `published_at` and is not published again (no event, no email), a scheduled one waits for
   * its `publish_at`. The linked posts must be the workspace's (the importer maps them).
   * Answers the new ids, in order.
   */
  importEntries(tx: Tx, workspaceId: string, entries: ImportedEntry[]): Promise<number[]> {
    if (entries.length === 0) return Promise.resolve([]);
    return this.store.importEntries(tx, workspaceId, entries);
  }

  // ---------------------------------------------------------------------------------------

  /** The entries with their linked posts (`publicOnly`: those on public boards alone). */
  private async withPosts(q: Queryable, reader: Reader, rows: EntryRow[], publicOnly = false): Promise<ChangelogEntryResponse[]> {
    const linked = await this.store.linked(q, reader.workspaceId, rows.map((row) => Number(row.id)));
    const posts = publicOnly ? linked.filter((post) => post.board_public) : linked;
    return rows.map((row) =>
      toEntryResponse(
        row,
        posts.filter((post) => post.entry_id === row.id),
        reader.workspaceSlug,
        this.links,
      ),
    );
  }

  /** The post ids, each once, all of them the workspace's; otherwise a 400 naming those that are not. */
  private async checkPosts(q: Queryable, workspaceId: string, postIds: number[] | undefined): Promise<number[]> {
    const ids = [...new Set(postIds ?? [])];
    if (ids.length === 0) return [];
    const existing = await this.store.existingPosts(q, workspaceId, ids);
    const missing = ids.filter((id) => !existing.has(id));
    if (missing.length > 0) {
      throw AppError.invalid('post_ids', `no post ${missing.join(', ')} in this workspace`);
    }
    return ids;
  }

  private unsubscribeUrl(workspaceId: string, email: string): string {
    return unsubscribeUrl(this.config.baseUrl, this.box, { workspaceId, email });
  }
}
