import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { BoardsService } from '../boards/boards.service';
import { ChangelogService } from '../changelog/changelog.service';
import { normalEmail } from '../common/email-address';
import { codePoints } from '../common/validation';
import { CommentsService } from '../comments/comments.service';
import { Database, Tx } from '../database/sql';
import { EventsStore } from '../outbox/events.store';
import { PostsService } from '../posts/posts.service';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { Counts, RECORD_FILES } from './export.service';
import { readAhead } from './sources/read-ahead';
import { ImportSource, PersonRef, SourceRecord, Where } from './sources/source';
import { TransferStore } from './transfer.store';

export interface ImportError {
  file: string;
  line: number;
  message: string;
}

/** What an import did (or, with `dryRun`, would do). */
export interface ImportReport {
  created: Counts;
  skipped: Counts;
  errors: ImportError[];
}

export interface ImportOptions {
  dryRun?: boolean;
  /** Called after each batch, with the counts so far. */
  onProgress?: (report: ImportReport) => void;
}

type RecordOf<K extends SourceRecord['kind']> = Extract<SourceRecord, { kind: K }>;
type Batched = Exclude<SourceRecord['kind'], 'error'>;

/** Records written per statement, by kind. */
const BATCH: Record<Batched, number> = { board: 500, person: 2_000, post: 2_000, vote: 5_000, comment: 2_000, entry: 500 };
const FILE_OF: Record<Batched, keyof Counts> = { board: 'boards', person: 'people', post: 'posts', vote: 'votes', comment: 'comments', entry: 'changelog' };

/** Lengths in code points, after trimming, as the API counts them (longer bodies are allowed for comments brought in). */
const TITLE_MAX = 120;
const BODY_MAX = 5_000;
/** A changelog entry's, as the API's. */
const ENTRY_TITLE_MIN = 4;
const ENTRY_BODY_MAX = 20_000;

/** Held posts written at once, at least (but at the end). */
const SETTLE_MIN = 500;

/** Posts whose counts one statement changes. */
const COUNTS_BATCH = 5_000;

/** Records read ahead of the batch being written, at most. */
const READ_AHEAD = 10_000;

/** Batches of votes sent and not yet answered, at most. */
const IN_FLIGHT = 4;

class DryRun extends Error {}

/**
 * Brings a source's boards, people, posts, votes, comments and changelog entries into an existing workspace, in
 * one transaction: all of it, or (the source failing midway, the key refused) none of it.
 * Quiet: no event is recorded, so no webhook, chat message or email follows (a published
 * changelog entry comes in published, not published again), and no rate limit or delivery quota is touched; the pages are told once, at commit, that the workspace changed.
 * Idempotent: every board, person (without an address), post, comment and entry is remembered by its
 * source's identity, and a vote is its post and person, so the same source again adds nothing.
 * People are found by their address's normal form, and come in as guests; people already there
 * keep what they are. Each write goes through the table's owner (its service, then its store), many rows a statement.
 */
@Injectable()
export class ImportService {
  constructor(
    private readonly db: Database,
    private readonly store: TransferStore,
    private readonly workspaces: WorkspacesService,
    private readonly boards: BoardsService,
    private readonly posts: PostsService,
    private readonly comments: CommentsService,
    private readonly changelog: ChangelogService,
    private readonly events: EventsStore,
  ) {}

  async import(workspaceId: string, source: ImportSource, options: ImportOptions = {}): Promise<ImportReport> {
    let report: ImportReport | undefined;
    try {
      await this.db.transaction(async (tx) => {
        // An import is a batch job: a statement of it may take longer than a request's.
        tx.send('SET LOCAL statement_timeout = 0');
        const run = new ImportRun(this, tx, workspaceId, source, options);
        report = await run.run();
        if (options.dryRun) throw new DryRun();
        this.events.announceSiteChange(tx, workspaceId);
      });
    } catch (error) {
      if (!(error instanceof DryRun)) throw error;
    }
    return report!;
  }

  /** What a run writes through: the owners' services (their stores), and its own store. */
  get stores() {
    return {
      transfer: this.store,
      workspaces: this.workspaces,
      boards: this.boards,
      posts: this.posts,
      comments: this.comments,
      changelog: this.changelog,
    };
  }
}

class ImportRun {
  private readonly report: ImportReport = {
    created: Object.fromEntries(RECORD_FILES.map((f) => [f, 0])) as Counts,
    skipped: Object.fromEntries(RECORD_FILES.map((f) => [f, 0])) as Counts,
    errors: [],
  };
  /** Target ids by source key. */
  private readonly boardIds = new Map<string, string>();
  private readonly personIds = new Map<string, string>();
  private readonly personByEmail = new Map<string, string>();
  private readonly postIds = new Map<string, number>();
  /** Post keys met in this run (a second one is a duplicate). */
  private readonly postKeys = new Set<string>();
  /** Changelog entry keys met in this run. */
  private readonly entryKeys = new Set<string>();
  private readonly merges: { postId: number; into: string; at: Where }[] = [];
  private pending: SourceRecord[] = [];
  private readonly flying: Promise<void>[] = [];
  private readonly counts = new Map<number, { votes: number; comments: number }>();
  /**
   * Posts written to the posts' holding table and not yet to posts (settle), with the comments
   * brought to each; and the votes held with them.
   */
  private readonly held = new Map<number, { votes: number; comments: number }>();
  /** The held posts with ids below this one are written. */
  private settledBelow = 0;
  private readonly s: ImportService['stores'];

  constructor(
    service: ImportService,
    private readonly tx: Tx,
    private readonly ws: string,
    private readonly from: ImportSource,
    private readonly options: ImportOptions,
  ) {
    this.s = service.stores;
  }

  /** The source's identity (an export's is known once its manifest is read). */
  private get source(): string {
    return this.from.name;
  }

  async run(): Promise<ImportReport> {
    this.s.posts.stageImports(this.tx);
    this.s.comments.stageImports(this.tx);
    // The source reads on while the database writes the batch before.
    for await (const record of readAhead(this.from.records(), READ_AHEAD)) {
      if (record.kind === 'error') {
        this.fail(record.at, record.message);
        continue;
      }
      if (this.pending.length > 0 && (this.pending[0].kind !== record.kind || this.pending.length >= BATCH[record.kind])) {
        await this.flush();
      }
      this.pending.push(record);
    }
    await this.flush();
    await this.settle();
    this.countOnPosts();
    this.applyMerges();
    return this.report;
  }

  private fail(at: Where, message: string): void {
    this.report.errors.push({ file: at.file, line: at.line, message });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    switch (batch[0].kind) {
      case 'board':
        await this.importBoards(batch as RecordOf<'board'>[]);
        break;
      case 'person':
        await this.importPeople(batch as RecordOf<'person'>[]);
        break;
      case 'post':
        await this.importPosts(batch as RecordOf<'post'>[]);
        break;
      case 'vote':
        await this.importVotes(batch as RecordOf<'vote'>[]);
        break;
      case 'comment':
        await this.importComments(batch as RecordOf<'comment'>[]);
        break;
      case 'entry':
        // An entry links posts: they must be written.
        await this.settle();
        await this.importEntries(batch as RecordOf<'entry'>[]);
        break;
    }
    this.options.onProgress?.(this.report);
  }

  private count(kind: Batched, created: number, skipped: number): void {
    this.report.created[FILE_OF[kind]] += created;
    this.report.skipped[FILE_OF[kind]] += skipped;
  }

  // Boards: by identity remembered, else by slug (an existing board is used as it is), else made.
  private async importBoards(records: RecordOf<'board'>[]): Promise<void> {
    const fresh = records.filter((r) => {
      if (!this.s.boards.isBoardSlug(r.slug)) return this.fail(r.at, `slug: "${r.slug}" is not a board slug`), false;
      if (r.name.trim() === '') return this.fail(r.at, 'name: is required'), false;
      if (this.boardIds.has(r.key)) return this.fail(r.at, `board ${r.key} is listed twice`), false;
      return true;
    });
    const known = await this.s.transfer.known(this.tx, this.ws, this.source, 'board', fresh.map((r) => r.key));
    const unknown = fresh.filter((r) => {
      const id = known.get(r.key);
      if (id) this.boardIds.set(r.key, id);
      return !id;
    });
    this.count('board', 0, fresh.length - unknown.length);
    await this.placeBoards(unknown);
  }

  /** Boards by slug: the workspace's when there, else made; remembered by their source keys. */
  private async placeBoards(records: { key: string; slug: string; name: string; description: string | null; public: boolean; notifyVoters: boolean; createdAt: string | null }[]): Promise<void> {
    if (records.length === 0) return;
    const existing = await this.s.boards.idsBySlugs(this.tx, this.ws, [...new Set(records.map((r) => r.slug))]);
    const made = new Map<string, { id: string; record: (typeof records)[number] }>();
    let skipped = 0;
    for (const record of records) {
      const id = existing.get(record.slug);
      if (id) {
        this.boardIds.set(record.key, id);
        skipped++;
      } else if (!made.has(record.slug)) {
        made.set(record.slug, { id: randomUUID(), record });
      }
    }
    const rows = [...made.values()];
    const inserted = rows.length
      ? await this.s.boards.importBoards(this.tx, this.ws, rows.map(({ id, record }) => ({ ...record, id })))
      : new Set<string>();
    if (inserted.size < rows.length) {
      // Made meanwhile by someone else: use theirs.
      const again = await this.s.boards.idsBySlugs(this.tx, this.ws, rows.filter((r) => !inserted.has(r.id)).map((r) => r.record.slug));
      for (const row of rows) if (!inserted.has(row.id)) row.id = again.get(row.record.slug)!;
    }
    for (const record of records) if (!this.boardIds.has(record.key)) this.boardIds.set(record.key, made.get(record.slug)!.id);
    this.count('board', inserted.size, skipped);
    this.s.transfer.remember(this.tx, this.ws, this.source, 'board', records.map((r) => ({ key: r.key, targetId: this.boardIds.get(r.key)! })));
  }

  private async importPeople(records: RecordOf<'person'>[]): Promise<void> {
    const refs: PersonRef[] = [];
    for (const r of records) {
      if (this.personIds.has(r.person.key)) this.fail(r.at, `person ${r.person.key} is listed twice`);
      else if (this.checkPerson(r.at, r.person)) refs.push(r.person);
    }
    await this.resolvePeople(refs, true);
  }

  /** Whether a reference can name a person: an address that has a normal form, or a name. */
  private checkPerson(at: Where, ref: PersonRef, who: 'author' | 'voter' | '' = ''): boolean {
    if (this.personIds.has(ref.key)) return true;
    const [emailField, nameField] = who ? [`${who}_email`, `${who}_name`] : ['email', 'name'];
    if (ref.email && !normalEmail(ref.email)) return this.fail(at, `${emailField}: "${ref.email}" is not an email address`), false;
    if (!ref.email && !ref.name?.trim()) {
      const defined = ref.name !== undefined || ref.email !== undefined;
      return this.fail(at, defined ? `${emailField} or ${nameField}: is required` : `person ${ref.key} is not in this import`), false;
    }
    return true;
  }

  /**
   * Finds or makes the people references name, and keeps their ids by key. `counted`: whether
   * they are people records (counted as created or skipped), or people named by a post, vote or
   * comment (counted when made, or when found for the first time in this run).
   */
  private async resolvePeople(refs: PersonRef[], counted: boolean): Promise<void> {
    const todo = refs.filter((ref) => !this.personIds.has(ref.key));
    if (todo.length === 0) return;
    let skipped = 0;
    const byEmail = new Map<string, PersonRef[]>();
    const unnamed: PersonRef[] = [];
    for (const ref of todo) {
      const email = ref.email ? normalEmail(ref.email) : null;
      if (email) {
        const id = this.personByEmail.get(email);
        if (id) {
          this.personIds.set(ref.key, id);
          if (counted) skipped++;
        } else byEmail.set(email, [...(byEmail.get(email) ?? []), ref]);
      } else if (!this.personIds.has(ref.key)) unnamed.push(ref);
    }
    const found = byEmail.size ? await this.s.workspaces.idsByEmails(this.tx, this.ws, [...byEmail.keys()]) : new Map<string, string>();
    const toMake: { id: string; ref: PersonRef; email: string | null }[] = [];
    for (const [email, same] of byEmail) {
      const id = found.get(email);
      if (id) {
        skipped++;
        this.personByEmail.set(email, id);
        for (const ref of same) this.personIds.set(ref.key, id);
      } else toMake.push({ id: randomUUID(), ref: same[0], email });
    }
    const unnamedKeys = [...new Set(unnamed.map((r) => r.key))];
    const known = await this.s.transfer.known(this.tx, this.ws, this.source, 'person', unnamedKeys);
    const remembered: { key: string; targetId: string }[] = [];
    const seen = new Set<string>();
    for (const ref of unnamed) {
      if (seen.has(ref.key)) continue;
      seen.add(ref.key);
      const id = known.get(ref.key);
      if (id) {
        skipped++;
        this.personIds.set(ref.key, id);
      } else {
        const person = { id: randomUUID(), ref, email: null };
        toMake.push(person);
        remembered.push({ key: ref.key, targetId: person.id });
      }
    }
    if (toMake.length) {
      const inserted = await this.s.workspaces.importPeople(
        this.tx,
        this.ws,
        toMake.map(({ id, ref, email }) => ({
          id,
          name: ref.name?.trim() || (email ?? '').split('@')[0] || 'Someone',
          email,
          createdAt: ref.createdAt ?? null,
          unsubscribed: ref.unsubscribed ?? false,
        })),
      );
      const raced = toMake.filter((p) => !inserted.has(p.id) && p.email);
      const again = raced.length ? await this.s.workspaces.idsByEmails(this.tx, this.ws, raced.map((p) => p.email!)) : new Map<string, string>();
      for (const person of toMake) {
        const id = inserted.has(person.id) ? person.id : again.get(person.email!)!;
        if (person.email) {
          this.personByEmail.set(person.email, id);
          for (const ref of byEmail.get(person.email)!) this.personIds.set(ref.key, id);
        } else this.personIds.set(person.ref.key, id);
      }
      this.count('person', inserted.size, raced.length);
    }
    this.s.transfer.remember(this.tx, this.ws, this.source, 'person', remembered);
    this.count('person', 0, skipped);
  }

  private checkText(at: Where, field: string, text: string, min: number, max: number): boolean {
    const length = codePoints(text);
    if (length < min) return this.fail(at, `${field}: is required`), false;
    if (length > max) return this.fail(at, `${field}: must be at most ${max.toLocaleString('en')} characters`), false;
    return true;
  }

  private async importPosts(records: RecordOf<'post'>[]): Promise<void> {
    const valid = records.filter((r) => {
      if (this.postKeys.has(r.key)) return this.fail(r.at, `id: ${r.key} is listed twice`), false;
      this.postKeys.add(r.key);
      if (r.board.slug !== undefined ? !this.s.boards.isBoardSlug(r.board.slug) : !this.boardIds.has(r.board.key)) {
        return this.fail(r.at, r.board.slug !== undefined ? `board: "${r.board.slug}" is not a board slug` : `board ${r.board.key} is not in this import`), false;
      }
      return (
        this.checkText(r.at, 'title', r.title.trim(), 1, TITLE_MAX) &&
        this.checkText(r.at, 'body', r.body.trim(), 0, BODY_MAX) &&
        this.checkPerson(r.at, r.author, 'author')
      );
    });
    // Both in one round trip (the transaction is pipelined).
    const [known] = await Promise.all([
      this.s.transfer.known(this.tx, this.ws, this.source, 'post', valid.map((r) => r.key)),
      this.resolvePeople(valid.map((r) => r.author), false),
    ]);
    const fresh = valid.filter((r) => {
      const id = known.get(r.key);
      if (id) this.postIds.set(r.key, Number(id));
      return !id;
    });
    this.count('post', 0, valid.length - fresh.length);
    if (fresh.length === 0) return;
    const boards = fresh.filter((r) => r.board.slug !== undefined && !this.boardIds.has(r.board.key));
    await this.placeBoards(
      boards.map((r) => ({ key: r.board.key, slug: r.board.slug!, name: nameOfSlug(r.board.slug!), description: null, public: true, notifyVoters: true, createdAt: null })),
    );
    const ids = await this.s.posts.importPosts(
      this.tx,
      fresh.map((r) => ({
        boardId: this.boardIds.get(r.board.key)!,
        title: r.title.trim(),
        body: r.body.trim(),
        category: r.category,
        status: r.status,
        pinned: r.pinned,
        moderation: r.moderation ?? 'approved',
        authorId: this.personIds.get(r.author.key)!,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
      })),
    );
    fresh.forEach((r, i) => {
      this.postIds.set(r.key, ids[i]);
      this.held.set(ids[i], { votes: 0, comments: 0 });
      if (r.mergedInto !== null) this.merges.push({ postId: ids[i], into: r.mergedInto, at: r.at });
    });
    this.s.transfer.remember(this.tx, this.ws, this.source, 'post', fresh.map((r, i) => ({ key: r.key, targetId: String(ids[i]) })));
    this.count('post', fresh.length, 0);
  }

  private async importVotes(records: RecordOf<'vote'>[]): Promise<void> {
    const valid = records.filter((r) => {
      if (!this.postIds.has(r.postKey)) return this.fail(r.at, `post_id: ${r.postKey} is not a post of this import`), false;
      return this.checkPerson(r.at, r.voter, 'voter');
    });
    await this.resolvePeople(valid.map((r) => r.voter), false);
    if (valid.length === 0) return;
    const all = valid.map((r) => ({ postId: this.postIds.get(r.postKey)!, personId: this.personIds.get(r.voter.key)!, createdAt: r.createdAt }));
    // A source lists its votes post by post, mostly: the held posts before this batch's first have
    // all theirs, and are written now, while the source reads on (a vote that comes later for one
    // is added and counted as on any post already there).
    let first = Infinity;
    for (const v of all) if (v.postId < first && this.held.has(v.postId)) first = v.postId;
    if (first !== Infinity && first - this.settledBelow >= SETTLE_MIN) await this.settle(first);
    // Votes on posts held back are held with them; others are added now.
    const held = all.filter((v) => this.held.has(v.postId));
    const votes = held.length === all.length ? [] : all.filter((v) => !this.held.has(v.postId));
    if (held.length) {
      await this.inFlight(
        this.s.posts.importHeldVotes(this.tx, held).then((posts) => {
          for (const postId of posts) this.held.get(postId)!.votes++;
          this.count('vote', posts.length, held.length - posts.length);
        }),
      );
    }
    if (votes.length === 0) return;
    // Not awaited here: the next rows are read while the database writes these.
    await this.inFlight(
      this.s.posts.importVotes(this.tx, this.ws, votes).then((posts) => {
        for (const postId of posts) this.tally(postId).votes++;
        this.count('vote', posts.length, votes.length - posts.length);
      }),
    );
  }

  /**
   * Keeps a batch's statements going while the next batch is read (the transaction is
   * pipelined), up to IN_FLIGHT batches; `landed` waits for all of them.
   */
  private async inFlight(batch: Promise<void>): Promise<void> {
    batch.catch(() => {}); // awaited below or by landed()
    this.flying.push(batch);
    while (this.flying.length > IN_FLIGHT) await this.flying.shift();
  }

  private async landed(): Promise<void> {
    while (this.flying.length) await this.flying.shift();
  }

  /** The votes and comments added to a post in this run, counted on it at the end. */
  private tally(postId: number): { votes: number; comments: number } {
    let counts = this.counts.get(postId);
    if (!counts) this.counts.set(postId, (counts = { votes: 0, comments: 0 }));
    return counts;
  }

  /** Each post's count changed once, whatever the order of its votes and comments in the source. */
  private countOnPosts(): void {
    const all = [...this.counts].map(([postId, c]) => ({ postId, votes: c.votes, comments: c.comments }));
    for (let i = 0; i < all.length; i += COUNTS_BATCH) this.s.posts.countImported(this.tx, this.ws, all.slice(i, i + COUNTS_BATCH));
  }

  private async importComments(records: RecordOf<'comment'>[]): Promise<void> {
    const keys = new Set<string>();
    let repeated = 0;
    const valid = records.filter((r) => {
      if (!this.postIds.has(r.postKey)) return this.fail(r.at, `post_id: ${r.postKey} is not a post of this import`), false;
      if (keys.has(r.key)) return repeated++, false;
      keys.add(r.key);
      return this.checkText(r.at, 'body', r.body.trim(), 1, BODY_MAX) && this.checkPerson(r.at, r.author, 'author');
    });
    const [known] = await Promise.all([
      this.s.transfer.known(this.tx, this.ws, this.source, 'comment', valid.map((r) => r.key)),
      this.resolvePeople(valid.map((r) => r.author), false),
    ]);
    const fresh = valid.filter((r) => !known.has(r.key));
    this.count('comment', 0, valid.length - fresh.length + repeated);
    if (fresh.length === 0) return;
    const comments = fresh.map((r) => ({
      postId: this.postIds.get(r.postKey)!,
      authorId: this.personIds.get(r.author.key)!,
      body: r.body.trim(),
      official: r.official,
      moderation: r.moderation ?? 'approved',
      createdAt: r.createdAt,
    }));
    // Comments on posts held back are held with them, after them; others are added now.
    const held = comments.filter((c) => this.held.has(c.postId));
    const now = held.length === comments.length ? [] : comments.filter((c) => !this.held.has(c.postId));
    const [heldIds, nowIds] = await Promise.all([
      held.length ? this.s.comments.importStagedComments(this.tx, held) : [],
      now.length ? this.s.comments.importComments(this.tx, this.ws, now) : [],
    ]);
    let [h, n] = [0, 0];
    const ids = comments.map((c) => (this.held.has(c.postId) ? heldIds[h++] : nowIds[n++]));
    // A held or rejected comment is on no post's count.
    for (const c of held) if (c.moderation === 'approved') this.held.get(c.postId)!.comments++;
    for (const c of now) if (c.moderation === 'approved') this.tally(c.postId).comments++;
    this.s.transfer.remember(this.tx, this.ws, this.source, 'comment', fresh.map((r, i) => ({ key: r.key, targetId: String(ids[i]) })));
    this.count('comment', fresh.length, 0);
  }

  /**
   * Changelog entries, through the changelog, in the state they had (published ones are not
   * published again: no event, no email), linking the posts their source's post ids became here.
   * An entry naming a post that is not in this import is reported, and left out.
   */
  private async importEntries(records: RecordOf<'entry'>[]): Promise<void> {
    const valid = records.filter((r) => {
      if (this.entryKeys.has(r.key)) return this.fail(r.at, `id: ${r.key} is listed twice`), false;
      this.entryKeys.add(r.key);
      const missing = r.postKeys.filter((key) => !this.postIds.has(key));
      if (missing.length > 0) {
        return this.fail(r.at, `post_ids: ${missing.join(', ')} ${missing.length === 1 ? 'is not a post' : 'are not posts'} of this import`), false;
      }
      return this.checkText(r.at, 'title', r.title.trim(), ENTRY_TITLE_MIN, TITLE_MAX) && this.checkText(r.at, 'body', r.body, 0, ENTRY_BODY_MAX);
    });
    const known = await this.s.transfer.known(this.tx, this.ws, this.source, 'changelog_entry', valid.map((r) => r.key));
    const fresh = valid.filter((r) => !known.has(r.key));
    this.count('entry', 0, valid.length - fresh.length);
    if (fresh.length === 0) return;
    const ids = await this.s.changelog.importEntries(
      this.tx,
      this.ws,
      fresh.map((r) => ({
        title: r.title.trim(),
        body: r.body,
        type: r.type,
        publishAt: r.publishAt,
        publishedAt: r.publishedAt,
        postIds: r.postKeys.map((key) => this.postIds.get(key)!),
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
      })),
    );
    this.s.transfer.remember(this.tx, this.ws, this.source, 'changelog_entry', fresh.map((r, i) => ({ key: r.key, targetId: String(ids[i]) })));
    this.count('entry', fresh.length, 0);
  }

  /**
   * Writes the posts held back, each once with its votes and comments counted, then the votes and
   * comments held with them.
   */
  private async settle(below: number | null = null): Promise<void> {
    await this.landed();
    if (this.held.size === 0) return;
    const counts: { postId: number; votes: number; comments: number }[] = [];
    // The map is in id order (ids are taken in order, a batch at a time).
    for (const [postId, c] of this.held) {
      if (below !== null && postId >= below) break;
      if (c.votes + c.comments > 0) counts.push({ postId, ...c });
      this.held.delete(postId);
    }
    this.s.posts.settleImported(this.tx, this.ws, this.settledBelow, below, counts);
    this.s.comments.settleImported(this.tx, this.ws, this.settledBelow, below);
    if (below !== null) this.settledBelow = below;
  }

  /** Merges are set once every post is in, whatever their order. */
  private applyMerges(): void {
    const merges: { postId: number; into: number }[] = [];
    for (const merge of this.merges) {
      const into = this.postIds.get(merge.into);
      if (into === undefined || into === merge.postId) this.fail(merge.at, `merged_into: post ${merge.into} is not a post of this import`);
      else merges.push({ postId: merge.postId, into });
    }
    this.s.posts.setMergedInto(this.tx, this.ws, merges);
  }
}

/** A board made for a slug a spreadsheet names: `feature-requests` → `Feature requests`. */
function nameOfSlug(slug: string): string {
  const words = slug.replace(/-+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
