import type { EntryType } from '../../changelog/changelog-entry';
import type { ModerationState, PostCategory, PostStatus } from '../../posts/post.entity';

/** Where a record starts: a file (or a list of an API) and its line, the header being line 1. */
export interface Where {
  file: string;
  line: number;
}

/**
 * A person as a record names one. `key` is the person's identity in the source (an id, or the
 * address or name a spreadsheet gives); with a name or an address the reference also says who
 * the person is, so that they can be found by address or made. A reference with neither names
 * a person record read before.
 */
export interface PersonRef {
  key: string;
  name?: string;
  /** As the source gives it; compared in its normal form. */
  email?: string | null;
  unsubscribed?: boolean;
  createdAt?: string | null;
}

/** A board as a post names it: a board record read before (by key), or a slug, made when missing. */
export interface BoardRef {
  key: string;
  slug?: string;
}

/** Times are ISO 8601 strings; null: the time of the import. */
export type SourceRecord =
  | {
      kind: 'board';
      at: Where;
      key: string;
      slug: string;
      name: string;
      description: string | null;
      public: boolean;
      notifyVoters: boolean;
      createdAt: string | null;
    }
  | { kind: 'person'; at: Where; person: PersonRef }
  | {
      kind: 'post';
      at: Where;
      key: string;
      board: BoardRef;
      title: string;
      body: string;
      category: PostCategory;
      status: PostStatus;
      pinned: boolean;
      /** A Chorus export's; none: approved. */
      moderation?: ModerationState;
      author: PersonRef;
      /** The key of the post this one was merged into. */
      mergedInto: string | null;
      createdAt: string | null;
      updatedAt: string | null;
    }
  | { kind: 'vote'; at: Where; postKey: string; voter: PersonRef; createdAt: string | null }
  | {
      kind: 'comment';
      at: Where;
      key: string;
      postKey: string;
      author: PersonRef;
      body: string;
      official: boolean;
      /** A Chorus export's; none: approved. */
      moderation?: ModerationState;
      createdAt: string | null;
    }
  /**
   * A changelog entry (a Chorus export's), in its state: published (`publishedAt`), scheduled
   * (`publishAt`) or a draft (neither). `postKeys`: the keys of the posts it links.
   */
  | {
      kind: 'entry';
      at: Where;
      key: string;
      title: string;
      body: string;
      type: EntryType;
      publishAt: string | null;
      publishedAt: string | null;
      postKeys: string[];
      createdAt: string | null;
      updatedAt: string | null;
    }
  /** A row the source could read but not make sense of. */
  | { kind: 'error'; at: Where; message: string };

/**
 * Where an import reads from. Records come in the order they depend on each other: boards,
 * people, posts, votes, comments, changelog entries.
 */
export interface ImportSource {
  /** The source's identity, remembered with every record it brought (`imported_records.source`). */
  readonly name: string;
  records(): AsyncIterable<SourceRecord>;
  /** How far reading has gone, when the whole is known (bytes of files). */
  progress(): { done: number; total: number } | undefined;
}

/** The source cannot be read, or refuses the key: the import writes nothing. */
export class SourceError extends Error {
  override name = 'SourceError';
}

/** Our status for one of ours or Canny's words (any case, `_` or space); undefined for another word. */
export function statusOf(word: string): PostStatus | undefined {
  const normal = word.trim().toLowerCase().replace(/[\s_]+/g, ' ');
  return STATUS_WORDS[normal];
}

const STATUS_WORDS: Record<string, PostStatus> = {
  open: 'open',
  planned: 'planned',
  closed: 'closed',
  'in progress': 'in_progress',
  done: 'done',
  'under review': 'open',
  complete: 'done',
};

/** An ISO 8601 time as the database takes it, null when empty, undefined when it is no such time. */
export function timeOf(text: string | null | undefined): string | null | undefined {
  if (text === null || text === undefined || text.trim() === '') return null;
  const trimmed = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/.test(trimmed)) return undefined;
  const time = new Date(trimmed);
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}

/** A board's slug as boards take it: the boards' own rule. */
export { SLUG as BOARD_SLUG } from '../../workspaces/workspaces.service';

/** A slug made from a board's name: `Feature Requests` → `feature-requests`. */
export function slugOf(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return slug || 'board';
}
