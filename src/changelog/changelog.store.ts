import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Database, named, Queryable, statement, Tx } from '../database/sql';
import { PostRow, postSelect } from '../posts/post.mapper';
import { ISO_TIMESTAMPS } from '../database/timestamps';
import type { EntryState, EntryType } from './changelog-entry';

/** An entry as its table keeps it. */
export interface EntryRow {
  id: string;
  title: string;
  body: string;
  type: EntryType;
  state: EntryState;
  publish_at: Date | null;
  published_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A linked post, with the entry that links it. */
export type LinkedPostRow = PostRow & { entry_id: string; board_public: boolean };

export interface NewEntryRow {
  title: string;
  body: string;
  type: EntryType;
  publishAt: Date | null;
  createdBy: string;
}

/** A PATCH: each field undefined when not sent; `publishAt` null makes a scheduled entry a draft. */
export interface EntryChange {
  title?: string;
  body?: string;
  type?: EntryType;
  publishAt?: Date | null;
  by: string;
}

/** An entry as an export writes it: the entry's row, and its linked posts' ids in ascending order. */
export type ExportedEntryRow = EntryRow & { post_ids: string[] };

/**
 * An entry an import brings, its state as it was (times as ISO 8601; created and updated none:
 * now): published (`publishedAt`), scheduled (`publishAt`), or a draft (neither).
 */
export interface ImportedEntry {
  title: string;
  body: string;
  type: EntryType;
  publishAt: string | null;
  publishedAt: string | null;
  postIds: number[];
  createdAt: string | null;
  updatedAt: string | null;
}

/** An entry whose emails are being made: where its batches stand. */
export interface MailingRow {
  id: string;
  title: string;
  mail_after: string;
  mail_event_id: string;
  publisher_id: string | null;
  plan: string;
  workspace_slug: string;
  workspace_name: string;
}

/** One address of an entry's audience, with the linked posts it voted on (none: a subscriber). */
export interface AudienceRow {
  email: string;
  post_ids: string[];
}

const STATE = `CASE WHEN e.published_at IS NOT NULL THEN 'published' WHEN e.publish_at IS NOT NULL THEN 'scheduled' ELSE 'draft' END`;
const COLUMNS = `e.id, e.title, e.body, e.type, ${STATE} AS state, e.publish_at, e.published_at, e.created_at, e.updated_at`;
/** Unpublished entries first, then the newest published. */
const ORDER = `(e.published_at IS NULL) DESC, e.published_at DESC, e.created_at DESC, e.id DESC`;

const list = (state: boolean) =>
  named(
    state ? 'changelog_list_state' : 'changelog_list',
    `SELECT ${COLUMNS} FROM changelog_entries e WHERE e.workspace_id = $1${state ? ` AND ${STATE} = $4` : ''}
      ORDER BY ${ORDER} LIMIT $2 OFFSET $3`,
  );

/**
 * changelog_entries, changelog_entry_posts and changelog_subscribers: every statement that
 * writes them. Reads join posts, boards, votes and people (the linked posts, the audience).
 */
@Injectable()
export class ChangelogStore {
  private static readonly INSERT = statement(
    'changelog_insert',
    `INSERT INTO changelog_entries (workspace_id, title, body, type, publish_at, publisher_id, created_by)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $5::timestamptz IS NULL THEN NULL ELSE $6::uuid END, $6)
     RETURNING id`,
  );
  private static readonly GET = statement('changelog_get', `SELECT ${COLUMNS} FROM changelog_entries e WHERE e.workspace_id = $1 AND e.id = $2`);
  private static readonly LOCK = statement(
    'changelog_lock',
    `SELECT ${COLUMNS} FROM changelog_entries e WHERE e.workspace_id = $1 AND e.id = $2 FOR UPDATE`,
  );
  private static readonly UPDATE = statement(
    'changelog_update',
    `UPDATE changelog_entries
        SET title = COALESCE($3, title), body = COALESCE($4, body), type = COALESCE($5, type),
            publish_at = CASE WHEN $6::boolean THEN $7::timestamptz ELSE publish_at END,
            publisher_id = CASE WHEN $6::boolean AND $7::timestamptz IS NOT NULL THEN $8::uuid ELSE publisher_id END,
            updated_at = now()
      WHERE workspace_id = $1 AND id = $2`,
  );
  private static readonly DELETE = statement('changelog_delete', `DELETE FROM changelog_entries WHERE workspace_id = $1 AND id = $2`);
  private static readonly UNLINK = statement(
    'changelog_unlink',
    `DELETE FROM changelog_entry_posts WHERE workspace_id = $1 AND entry_id = $2 AND post_id <> ALL ($3::bigint[])`,
  );
  private static readonly LINK = statement(
    'changelog_link',
    `INSERT INTO changelog_entry_posts (workspace_id, entry_id, post_id)
     SELECT $1, $2, unnest($3::bigint[]) ON CONFLICT DO NOTHING`,
  );
  private static readonly POSTS_EXISTING = statement(
    'changelog_posts_existing',
    `SELECT id FROM posts WHERE workspace_id = $1 AND id = ANY ($2::bigint[])`,
  );
  private static readonly LINKED = statement(
    'changelog_linked',
    `SELECT l.entry_id, x.* FROM changelog_entry_posts l
       CROSS JOIN LATERAL (
         SELECT q.*, (SELECT b.public FROM boards b WHERE b.workspace_id = $1 AND b.id = q.board_id) AS board_public
           FROM (${postSelect()} WHERE p.workspace_id = $1 AND p.id = l.post_id AND p.moderation = 'approved') q) x
      WHERE l.workspace_id = $1 AND l.entry_id = ANY ($2::bigint[])
      ORDER BY l.entry_id, l.post_id`,
    ISO_TIMESTAMPS,
  );
  private static readonly PUBLISH = statement(
    'changelog_publish',
    `UPDATE changelog_entries
        SET published_at = now(), publish_at = NULL, publisher_id = COALESCE($3, publisher_id),
            mail_after = '', mail_event_id = $5, updated_at = now()
      WHERE workspace_id = $1 AND id = $2 AND published_at IS NULL AND ($4::boolean OR publish_at <= now())
      RETURNING publisher_id`,
  );
  private static readonly DUE = statement(
    'changelog_due',
    `SELECT e.workspace_id, e.id, w.slug AS workspace_slug FROM changelog_entries e JOIN workspaces w ON w.id = e.workspace_id
      WHERE e.published_at IS NULL AND e.publish_at IS NOT NULL AND e.publish_at <= now()
      ORDER BY e.publish_at LIMIT $1`,
  );
  private static readonly MAILING = statement(
    'changelog_mailing',
    // Each workspace's entries take turns (its first, then every workspace's second…), so that
    // one workspace with many publishes under way cannot fill the list (as voter mailings do).
    `SELECT workspace_id, id
       FROM (SELECT workspace_id, id, published_at,
                    row_number() OVER (PARTITION BY workspace_id ORDER BY published_at, id) AS turn
               FROM changelog_entries WHERE mail_after IS NOT NULL) e
      ORDER BY turn, published_at, id LIMIT $1`,
  );
  private static readonly LOCK_MAILING = statement(
    'changelog_lock_mailing',
    `SELECT e.id, e.title, e.mail_after, e.mail_event_id, e.publisher_id, w.plan, w.slug AS workspace_slug, w.name AS workspace_name
       FROM changelog_entries e JOIN workspaces w ON w.id = e.workspace_id
      WHERE e.workspace_id = $1 AND e.id = $2 AND e.mail_after IS NOT NULL
      FOR UPDATE OF e SKIP LOCKED`,
  );
  private static readonly MAILED = statement(
    'changelog_mailed',
    `UPDATE changelog_entries SET mail_after = $3 WHERE workspace_id = $1 AND id = $2`,
  );
  /**
   * A page of the entry's audience, by address after `$3`: voters of linked posts on public
   * boards with voter email on, and subscribers; without unsubscribed addresses and the
   * publisher's. An address is one person (people's addresses are unique in their normal form,
   * common/email-address.ts), so the page walks people in address order (people_email_key) from
   * the last address of the page before, and stops at `$5` of them: every batch of a publish
   * reads on from where the last one stopped, never the whole audience again.
   */
  private static readonly EMAILED_POSTS = statement(
    'changelog_emailed_posts',
    `SELECT l.post_id FROM changelog_entry_posts l
       JOIN posts p ON p.workspace_id = $1 AND p.id = l.post_id
       JOIN boards b ON b.workspace_id = $1 AND b.id = p.board_id
      WHERE l.workspace_id = $1 AND l.entry_id = $2 AND b.public AND b.notify_voters AND p.moderation = 'approved'`,
  );
  // The linked posts come as a parameter ($5), so that each person's votes for them are read
  // from votes' primary key (workspace_id, post_id, person_id) by all three.
  private static readonly AUDIENCE = statement(
    'changelog_audience',
    `SELECT pe.email,
            ARRAY(SELECT v.post_id::text FROM votes v
                   WHERE v.workspace_id = $1 AND v.post_id = ANY ($5::bigint[]) AND v.person_id = pe.id ORDER BY v.post_id) AS post_ids
       FROM people pe
      WHERE pe.workspace_id = $1 AND pe.email IS NOT NULL AND pe.email > $2
        AND pe.email_unsubscribed_at IS NULL AND pe.id IS DISTINCT FROM $3
        AND (EXISTS (SELECT 1 FROM votes v WHERE v.workspace_id = $1 AND v.post_id = ANY ($5::bigint[]) AND v.person_id = pe.id)
             OR EXISTS (SELECT 1 FROM changelog_subscribers s WHERE s.workspace_id = $1 AND s.person_id = pe.id))
      ORDER BY pe.email LIMIT $4`,
  );
  private static readonly SUBSCRIBE = statement(
    'changelog_subscribe',
    `INSERT INTO changelog_subscribers (workspace_id, person_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
  );
  private static readonly UNSUBSCRIBE = statement(
    'changelog_unsubscribe',
    `DELETE FROM changelog_subscribers WHERE workspace_id = $1 AND person_id = $2`,
  );
  private static readonly SUBSCRIBED = statement(
    'changelog_subscribed',
    `SELECT 1 FROM changelog_subscribers WHERE workspace_id = $1 AND person_id = $2`,
  );
  private static readonly LINKING = statement(
    'changelog_linking',
    `SELECT ${COLUMNS} FROM changelog_entries e
      WHERE e.workspace_id = $1 AND e.id IN (SELECT entry_id FROM changelog_entry_posts WHERE workspace_id = $1 AND post_id = $2)
        AND ($3::boolean IS FALSE OR e.published_at IS NOT NULL)
      ORDER BY ${ORDER}`,
  );

  /** The workspace's entries after `$2` by id, each with its linked posts' ids (an export's page). */
  private static readonly EXPORT_PAGE = statement(
    'changelog_export_page',
    `SELECT ${COLUMNS},
            ARRAY(SELECT l.post_id::text FROM changelog_entry_posts l
                   WHERE l.workspace_id = $1 AND l.entry_id = e.id ORDER BY l.post_id) AS post_ids
       FROM changelog_entries e
      WHERE e.workspace_id = $1 AND e.id > $2 ORDER BY e.id LIMIT $3`,
  );
  private static readonly NEXT_IDS = statement(
    'changelog_next_ids',
    `SELECT nextval('changelog_entries_id_seq')::text AS id FROM generate_series(1, $1)`,
  );
  /**
   * Entries brought in, in their state: no publisher, no creator, and no emails to make
   * (`mail_after` null): an entry published elsewhere is not published again here.
   */
  private static readonly IMPORT = statement(
    'changelog_import',
    `INSERT INTO changelog_entries (workspace_id, id, title, body, type, publish_at, published_at, created_at, updated_at)
     SELECT $1, r.id, r.title, r.body, r.type, CASE WHEN r.published_at IS NULL THEN r.publish_at END, r.published_at,
            coalesce(r.created_at, now()), coalesce(r.updated_at, r.created_at, now())
       FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::timestamptz[], $8::timestamptz[], $9::timestamptz[])
         AS r(id, title, body, type, publish_at, published_at, created_at, updated_at)`,
  );
  private static readonly IMPORT_LINKS = statement(
    'changelog_import_links',
    `INSERT INTO changelog_entry_posts (workspace_id, entry_id, post_id)
     SELECT $1, l.entry_id, l.post_id FROM unnest($2::bigint[], $3::bigint[]) AS l(entry_id, post_id)
     ON CONFLICT DO NOTHING`,
  );

  constructor(protected readonly db: Database) {}

  /** A page of the workspace's entries in ascending id order, after `after` (an export reads them so, in its snapshot). */
  exportPage(q: Queryable, workspaceId: string, after: string | null, limit: number): Promise<ExportedEntryRow[]> {
    return q.rows<ExportedEntryRow>(ChangelogStore.EXPORT_PAGE, [workspaceId, after ?? '0', limit]);
  }

  /** Brings entries in with their links, many a statement; answers their new ids, in order. */
  async importEntries(tx: Tx, workspaceId: string, entries: ImportedEntry[]): Promise<number[]> {
    const ids = (await tx.rows<{ id: string }>(ChangelogStore.NEXT_IDS, [entries.length])).map((row) => row.id);
    tx.send(ChangelogStore.IMPORT, [
      workspaceId,
      ids,
      entries.map((e) => e.title),
      entries.map((e) => e.body),
      entries.map((e) => e.type),
      entries.map((e) => e.publishAt),
      entries.map((e) => e.publishedAt),
      entries.map((e) => e.createdAt),
      entries.map((e) => e.updatedAt),
    ]);
    const links = entries.flatMap((e, i) => e.postIds.map((postId) => ({ entryId: ids[i], postId })));
    if (links.length > 0) {
      tx.send(ChangelogStore.IMPORT_LINKS, [workspaceId, links.map((l) => l.entryId), links.map((l) => l.postId)]);
    }
    return ids.map(Number);
  }

  async insert(tx: Tx, workspaceId: string, entry: NewEntryRow): Promise<number> {
    const [row] = await tx.rows<{ id: string }>(ChangelogStore.INSERT, [
      workspaceId,
      entry.title,
      entry.body,
      entry.type,
      entry.publishAt,
      entry.createdBy,
    ]);
    return Number(row.id);
  }

  async get(q: Queryable, workspaceId: string, id: number): Promise<EntryRow | undefined> {
    const [row] = await q.rows<EntryRow>(ChangelogStore.GET, [workspaceId, id]);
    return row;
  }

  async lock(tx: Tx, workspaceId: string, id: number): Promise<EntryRow | undefined> {
    const [row] = await tx.rows<EntryRow>(ChangelogStore.LOCK, [workspaceId, id]);
    return row;
  }

  list(workspaceId: string, filter: { state?: EntryState; limit: number; offset: number }): Promise<EntryRow[]> {
    const params: unknown[] = [workspaceId, filter.limit + 1, filter.offset];
    if (filter.state) params.push(filter.state);
    return this.db.rows<EntryRow>(list(filter.state !== undefined), params);
  }

  update(tx: Tx, workspaceId: string, id: number, change: EntryChange): void {
    tx.send(ChangelogStore.UPDATE, [
      workspaceId,
      id,
      change.title ?? null,
      change.body ?? null,
      change.type ?? null,
      change.publishAt !== undefined,
      change.publishAt ?? null,
      change.by,
    ]);
  }

  delete(tx: Tx, workspaceId: string, id: number): Promise<number> {
    return tx.count(ChangelogStore.DELETE, [workspaceId, id]);
  }

  /** Which of `postIds` are posts of the workspace. */
  async existingPosts(q: Queryable, workspaceId: string, postIds: number[]): Promise<Set<number>> {
    const rows = await q.rows<{ id: string }>(ChangelogStore.POSTS_EXISTING, [workspaceId, postIds]);
    return new Set(rows.map((row) => Number(row.id)));
  }

  /** Makes the entry link exactly `postIds`. */
  setLinks(tx: Tx, workspaceId: string, entryId: number, postIds: number[]): void {
    tx.send(ChangelogStore.UNLINK, [workspaceId, entryId, postIds]);
    if (postIds.length > 0) tx.send(ChangelogStore.LINK, [workspaceId, entryId, postIds]);
  }

  /** The posts the entries link, each with its entry's id, in post id order. */
  linked(q: Queryable, workspaceId: string, entryIds: number[]): Promise<LinkedPostRow[]> {
    if (entryIds.length === 0) return Promise.resolve([]);
    return q.rows<LinkedPostRow>(ChangelogStore.LINKED, [workspaceId, entryIds]);
  }

  /**
   * Publishes the entry if it is not published yet (`now`), or if it is scheduled and due: true
   * for the one transaction that does it, answering who published it (a second one waits for the first's row lock, then
   * finds it published).
   */
  async publish(
    tx: Tx,
    workspaceId: string,
    id: number,
    publisherId: string | null,
    now: boolean,
  ): Promise<{ publisher_id: string | null } | undefined> {
    const [row] = await tx.rows<{ publisher_id: string | null }>(ChangelogStore.PUBLISH, [workspaceId, id, publisherId, now, randomUUID()]);
    return row;
  }

  /** Scheduled entries whose time has come, of every workspace. */
  due(limit: number): Promise<{ workspace_id: string; id: string; workspace_slug: string }[]> {
    return this.db.rows(ChangelogStore.DUE, [limit]);
  }

  /** Published entries whose emails are still being made, of every workspace. */
  mailing(limit: number): Promise<{ workspace_id: string; id: string }[]> {
    return this.db.rows(ChangelogStore.MAILING, [limit]);
  }

  /** The entry whose emails are being made, locked (undefined: done, or another processor has it). */
  async lockMailing(tx: Tx, workspaceId: string, id: number): Promise<MailingRow | undefined> {
    const [row] = await tx.rows<MailingRow>(ChangelogStore.LOCK_MAILING, [workspaceId, id]);
    return row;
  }

  /** Where the batches stand: the last address queued, or null when done. */
  mailed(tx: Tx, workspaceId: string, id: number, after: string | null): void {
    tx.send(ChangelogStore.MAILED, [workspaceId, id, after]);
  }

  async audience(tx: Tx, workspaceId: string, id: number, after: string, publisherId: string | null, limit: number): Promise<AudienceRow[]> {
    const posts = await tx.rows<{ post_id: string }>(ChangelogStore.EMAILED_POSTS, [workspaceId, id]);
    return tx.rows<AudienceRow>(ChangelogStore.AUDIENCE, [workspaceId, after, publisherId, limit, posts.map((row) => row.post_id)]);
  }

  async setSubscribed(workspaceId: string, personId: string, on: boolean): Promise<void> {
    await this.db.count(on ? ChangelogStore.SUBSCRIBE : ChangelogStore.UNSUBSCRIBE, [workspaceId, personId]);
  }

  async isSubscribed(workspaceId: string, personId: string): Promise<boolean> {
    return (await this.db.rows(ChangelogStore.SUBSCRIBED, [workspaceId, personId])).length > 0;
  }

  /** The entries linking a post (published ones only, when asked). */
  linking(workspaceId: string, postId: number, publishedOnly: boolean): Promise<EntryRow[]> {
    return this.db.rows<EntryRow>(ChangelogStore.LINKING, [workspaceId, postId, publishedOnly]);
  }
}
