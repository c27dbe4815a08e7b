import { Injectable } from '@nestjs/common';
import { BoardsService } from '../boards/boards.service';
import { AppError } from '../common/app-error';
import { Page, pageOf } from '../common/page.query';
import type { Caller } from '../common/request-context';
import { Links } from '../config/links';
import { Database, Queryable, Tx } from '../database/sql';
import { EventsStore } from '../outbox/events.store';
import { AuthorInput, WorkspacesService } from '../workspaces/workspaces.service';
import { ModerationState, PostCategory, PostStatus } from './post.entity';
import { PostResponse, PostRow, SimilarPostResponse, toPostResponse, VoterResponse } from './post.mapper';
import { ImportedPost, LockedPost, PostsStore } from './posts.store';

/** Who acts: an API key's workspace and creator, or the CLI and seed acting as a member. */
export type Actor = Pick<Caller, 'workspaceId' | 'workspaceSlug' | 'personId'>;
/** Who reads: a workspace, as its links name it. */
export type Reader = Pick<Actor, 'workspaceId' | 'workspaceSlug'>;

export interface NewPost {
  board: string;
  title: string;
  body?: string;
  category?: PostCategory;
  author?: AuthorInput;
}

export interface PostFilter {
  board?: string;
  /** The board's id, when the caller has looked the board up already (the public site). */
  boardId?: string;
  /** Only posts of public boards (the public site's roadmap). */
  publicOnly?: boolean;
  status?: PostStatus;
  q?: string;
  sort: 'new' | 'top';
  includeMerged: boolean;
  /** Held (`pending`) or `rejected` posts instead of the approved ones (the API's filter; the team's only). */
  moderation?: ModerationState;
  limit: number;
  offset: number;
}

export interface PostPage {
  data: PostResponse[];
  has_more: boolean;
  next_offset: number | null;
}

@Injectable()
export class PostsService {
  constructor(
    private readonly db: Database,
    private readonly store: PostsStore,
    private readonly boards: BoardsService,
    private readonly workspaces: WorkspacesService,
    private readonly events: EventsStore,
    private readonly links: Links,
  ) {}

  async list(actor: Reader, filter: PostFilter): Promise<PostPage> {
    const boardId = filter.boardId ?? (filter.board ? (await this.boards.findBySlug(actor.workspaceId, filter.board)).id : undefined);
    const rows = await this.store.list(actor.workspaceId, {
      boardId,
      publicOnly: filter.publicOnly,
      status: filter.status,
      terms: (filter.q ?? '').split(/\s+/).filter(Boolean),
      sort: filter.sort,
      includeMerged: filter.includeMerged,
      moderation: filter.moderation ?? 'approved',
      limit: filter.limit,
      offset: filter.offset,
    });
    return pageOf(
      rows.map((row) => toPostResponse(row, actor.workspaceSlug, this.links)),
      filter,
    );
  }

  /**
   * Up to 5 of a board's posts (approved, not merged) whose titles are most like `title`, best first,
   * none under 0.3 similar: duplicates to show before a new post, and merge targets. `board`: a
   * slug (404 when the workspace has no such board), or the board's id when the caller has
   * looked it up. `except`: a post to leave out (the one being merged).
   */
  async similar(reader: Reader, input: { board: string | { id: string }; title: string; except?: number }): Promise<SimilarPostResponse[]> {
    const boardId = typeof input.board === 'string' ? (await this.boards.findBySlug(reader.workspaceId, input.board)).id : input.board.id;
    const rows = await this.store.similar(reader.workspaceId, boardId, input.title, input.except);
    return rows.map((row) => ({ ...toPostResponse(row, reader.workspaceSlug, this.links), similarity: Math.round(row.similarity * 1000) / 1000 }));
  }

  async get(actor: Reader, id: number, q: Queryable = this.db): Promise<PostResponse> {
    const row = await this.store.get(q, actor.workspaceId, id);
    if (!row) throw AppError.notFound('post');
    return toPostResponse(row, actor.workspaceSlug, this.links);
  }

  /**
   * A post as a reader of the public site may see it: an approved one, or a held or rejected
   * one to its author alone (`viewerId`); anyone else: not found, as for no post at all.
   */
  async visibleTo(reader: Reader, id: number, viewerId: string | undefined): Promise<PostResponse> {
    const row = await this.store.get(this.db, reader.workspaceId, id);
    if (!row || (row.moderation !== 'approved' && row.author_id !== viewerId)) throw AppError.notFound('post');
    return toPostResponse(row, reader.workspaceSlug, this.links);
  }

  /**
   * Creates a post with its author's vote, and `post.created`. Posting as the key's creator (no
   * `author`) takes two round trips on one server: BEGIN with the board lookup, both inserts and
   * the read of the new post (one statement); then the event and the COMMIT.
   *
   * A visitor's post (`visitor`: the public site and the widget, the actor being the visitor) is
   * held when the workspace's moderation says so: `pending`, with `post.pending` instead, and in
   * no list until approved. A key's posts and a member's never are.
   */
  async create(actor: Actor, input: NewPost, options: { visitor?: boolean } = {}): Promise<PostResponse> {
    return this.db.transaction(async (tx) => {
      let authorId = actor.personId;
      if (input.author) {
        // An unknown board is a 404 before any problem with the author.
        await this.boards.findBySlug(actor.workspaceId, input.board, tx);
        authorId = (await this.workspaces.resolveAuthor(tx, actor.workspaceId, input.author)).id;
      }
      const held = options.visitor === true && (await this.workspaces.holds(tx, actor.workspaceId, authorId));
      const event = this.events.expect(tx, actor.workspaceId, held ? 'post.pending' : 'post.created');
      const row = await this.store.create(tx, actor.workspaceId, {
        boardSlug: input.board,
        title: input.title,
        body: input.body ?? '',
        category: input.category ?? 'feature',
        authorId,
        moderation: held ? 'pending' : 'approved',
      });
      if (!row) throw AppError.notFound(`board "${input.board}"`);
      // A person with an approved post is no longer held in mode `first` (the key's creator is a member: never held).
      if (!held && (options.visitor || input.author)) this.workspaces.markApproved(tx, actor.workspaceId, [authorId]);
      const post = toPostResponse(row, actor.workspaceSlug, this.links);
      await event.record({ post }, actor.personId);
      return post;
    });
  }

  /**
   * Approves, holds or rejects a post, from any state. Approving sends `post.created` then, with
   * the post as it now is; the same state again changes nothing and sends nothing.
   */
  async setModeration(actor: Actor, id: number, to: ModerationState): Promise<PostResponse> {
    return this.db.transaction(async (tx) => {
      const locked = (await this.store.lock(tx, actor.workspaceId, [id])).get(id);
      if (!locked) throw AppError.notFound('post');
      if (locked.moderation === to) return this.get(actor, id, tx);
      const event = to === 'approved' ? this.events.expect(tx, actor.workspaceId, 'post.created') : null;
      this.store.setModeration(tx, actor.workspaceId, id, to);
      const post = await this.get(actor, id, tx);
      if (event) {
        this.workspaces.markApproved(tx, actor.workspaceId, [locked.authorId]);
        await event.record({ post }, actor.personId);
      } else if (locked.moderation === 'approved') {
        // Out of the lists it was in: no event tells the pages.
        this.events.announceSiteChange(tx, actor.workspaceId);
      }
      return post;
    });
  }

  /** Rejects every held post of a person (a blocked one), in the caller's transaction; answers their ids. Nothing is sent. */
  rejectPendingOf(tx: Tx, workspaceId: string, personId: string): Promise<number[]> {
    return this.store.rejectPendingOf(tx, workspaceId, personId);
  }

  /**
   * Sets a post's status. The same status again changes nothing and sends nothing; nor does a
   * change of a held or rejected post (no event, so no message or voter email either).
   */
  async setStatus(actor: Actor, id: number, status: PostStatus): Promise<PostResponse> {
    return this.db.transaction(async (tx) => {
      const locked = (await this.store.lock(tx, actor.workspaceId, [id])).get(id);
      const previous = locked?.status;
      if (!previous) throw AppError.notFound('post');
      if (previous === status) return this.get(actor, id, tx);
      this.store.setStatus(tx, actor.workspaceId, { postId: id, from: previous, to: status, by: actor.personId });
      const post = await this.get(actor, id, tx);
      if (locked.moderation === 'approved') {
        await this.events.record(tx, actor.workspaceId, 'post.status_changed', { post, previous_status: previous }, actor.personId);
      }
      return post;
    });
  }

  /**
   * Merges post `id` into `into`: the merged post is closed and points at the target, and its
   * voters' votes count on the target (once per person).
   */
  async merge(actor: Actor, id: number, into: number): Promise<PostResponse> {
    return this.db.transaction(async (tx) => {
      const posts = await this.store.lock(tx, actor.workspaceId, [id, into]);
      this.refuseMerge(posts, id, into);
      const previous = posts.get(id)!.status;
      this.store.merge(tx, actor.workspaceId, { postId: id, into, from: previous, by: actor.personId });
      const post = await this.get(actor, id, tx);
      if (posts.get(id)!.moderation !== 'approved') {
        // A held post's merge sends nothing; its target's votes may have changed all the same.
        this.events.announceSiteChange(tx, actor.workspaceId);
        return post;
      }
      await this.events.record(
        tx,
        actor.workspaceId,
        'post.status_changed',
        { post, previous_status: previous, merged_into: post.merged_into },
        actor.personId,
      );
      return post;
    });
  }

  /** Which of these posts a person's vote is on. */
  votedBy(reader: Reader, personId: string, postIds: number[]): Promise<Set<number>> {
    return this.store.votedBy(reader.workspaceId, personId, postIds);
  }

  /**
   * Refuses a merge that `merge` would refuse, changing nothing (the dashboard asks before it
   * merges, and asks only about a merge that can be made).
   */
  async checkMerge(actor: Reader, id: number, into: number): Promise<void> {
    this.refuseMerge(await this.store.peek(actor.workspaceId, [id, into]), id, into);
  }

  private refuseMerge(posts: Map<number, LockedPost>, id: number, into: number): void {
    const source = posts.get(id);
    if (!source) throw AppError.notFound('post');
    if (into === id) throw AppError.invalid('into', 'must be another post');
    const target = posts.get(into);
    if (!target) throw AppError.invalid('into', `no post ${into} in this workspace`);
    if (source.mergedIntoId !== null) {
      // The path's post is at fault, not a body field; merging its target is what the caller can do.
      throw AppError.invalid('path', `post ${id} is already merged into post ${source.mergedIntoId}; merge post ${source.mergedIntoId} instead`);
    }
    if (target.mergedIntoId !== null) {
      throw AppError.invalid('into', `post ${into} is itself merged into post ${target.mergedIntoId}`);
    }
    if (source.moderation === 'approved' && target.moderation !== 'approved') {
      // A published post and its votes would vanish into one nobody else can see; a held post
      // may still be merged into a published one (a duplicate found during review).
      const why = target.moderation === 'pending' ? 'is awaiting review; approve it first' : 'was rejected';
      throw AppError.invalid('into', `post ${into} ${why}`);
    }
  }

  /** The people who voted for a post, newest vote first: names only, never an email. */
  async listVoters(actor: Actor, id: number, page: Page): Promise<{ data: VoterResponse[]; has_more: boolean; next_offset: number | null }> {
    await this.get(actor, id);
    return pageOf(await this.store.voters(actor.workspaceId, id, page), page);
  }

  /**
   * Adds a vote on behalf of `voter` (the rules of a post's author: a known email is that
   * person, otherwise a new guest; omitted, the acting member). A vote for a merged post goes to
   * the post it was merged into. Answers that post, and whether the vote is new: a vote already
   * there changes nothing and sends nothing. The CLI acts as no member (`personId` null): the
   * voter is then who acted.
   */
  async addVote(
    actor: Omit<Actor, 'personId'> & { personId: string | null },
    id: number,
    voter?: AuthorInput,
  ): Promise<{ post: PostResponse; added: boolean }> {
    return this.db.transaction(async (tx) => {
      const chain = await this.lockMergeChain(tx, actor.workspaceId, id);
      const personId = voter ? (await this.workspaces.resolveAuthor(tx, actor.workspaceId, voter, 'voter')).id : actor.personId;
      if (!personId) throw AppError.invalid('voter', 'is required');
      return this.castVote(tx, { ...actor, personId: actor.personId ?? personId }, chain.at(-1)!, personId);
    });
  }

  /** Adds a known person's vote, as `addVote` does (the demo seed and tests). */
  async vote(actor: Actor, postId: number, personId: string): Promise<{ post: PostResponse; added: boolean }> {
    return this.db.transaction(async (tx) => {
      const chain = await this.lockMergeChain(tx, actor.workspaceId, postId);
      return this.castVote(tx, actor, chain.at(-1)!, personId);
    });
  }

  /**
   * Removes `voter`'s vote (a known email, or omitted: the key's creator) from the post and
   * from every post it was merged into, where it counts. Removing a vote that is not there
   * changes nothing. A name alone names no one: refused.
   */
  async removeVote(actor: Actor, id: number, voter?: AuthorInput): Promise<boolean> {
    if (voter && !voter.email) throw AppError.invalid('voter.email', 'is required to remove a vote');
    return this.db.transaction(async (tx) => {
      const chain = await this.lockMergeChain(tx, actor.workspaceId, id);
      const personId = voter ? (await this.workspaces.findByEmail(actor.workspaceId, voter.email!, tx))?.id : actor.personId;
      if (!personId) return false;
      const removed = await this.store.removeVotes(tx, actor.workspaceId, chain, personId);
      // No event tells of a vote taken back; the public pages must still hear of it.
      if (removed.length > 0) this.events.announceSiteChange(tx, actor.workspaceId);
      return removed.length > 0;
    });
  }

  /** One vote per person: a new one is counted and sends `post.voted`. */
  private async castVote(tx: Tx, actor: Actor, postId: number, personId: string) {
    const added = await this.store.castVote(tx, actor.workspaceId, postId, personId);
    const [post, voter] = await Promise.all([this.get(actor, postId, tx), added ? this.workspaces.findPerson(tx, actor.workspaceId, personId) : null]);
    // A vote on a held post tells no one of the post.
    if (voter && post.moderation === 'approved') {
      await this.events.record(tx, actor.workspaceId, 'post.voted', { post, voter: { name: voter.name } }, actor.personId);
    }
    return { post, added };
  }

  /**
   * Locks a post and the posts it was merged into, in the order the merges point (a merge
   * target may itself have been merged later). The last one is where votes count.
   */
  private async lockMergeChain(tx: Tx, workspaceId: string, id: number): Promise<number[]> {
    const chain: number[] = [];
    for (let next: number | null = id; next !== null && !chain.includes(next); ) {
      const post = (await this.store.lock(tx, workspaceId, [next])).get(next);
      if (!post) throw AppError.notFound('post');
      chain.push(next);
      next = post.mergedIntoId;
    }
    return chain;
  }

  /** Takes a comment that is no longer approved off its post's count, in the comment's transaction. */
  uncountComment(tx: Tx, actor: Reader, postId: number): void {
    this.store.uncountComment(tx, actor.workspaceId, postId);
  }

  /** Counts a new comment on its post, in the comment's transaction; 404 when the post is not there. */
  async countComment(tx: Tx, actor: Reader, postId: number): Promise<void> {
    if (!(await this.store.countComment(tx, actor.workspaceId, postId))) throw AppError.notFound('post');
  }

  /** The newest posts of public boards that have a page of their own (never merged ones), for the sitemap. */
  async newestPublic(reader: Reader, limit: number): Promise<{ url: string; updated_at: Date }[]> {
    const rows = await this.store.newestPublic(reader.workspaceId, limit);
    return rows.map((row) => ({ url: this.links.post(reader.workspaceSlug, row.board_slug, Number(row.id), row.title), updated_at: row.updated_at }));
  }

  /** 404 unless the post is there. */
  async mustExist(actor: Reader, postId: number): Promise<void> {
    if (!(await this.store.exists(actor.workspaceId, postId))) throw AppError.notFound('post');
  }

  // Imports (src/transfer): posts, votes and counts brought in many a statement, in the importer's transaction.

  /**
   * Makes the session's tables where an import's posts wait, with the votes on them, until
   * settleImported (dropped at commit): each post is then written once, its counts included.
   */
  stageImports(tx: Tx): void {
    this.store.stageImports(tx);
  }

  /** Posts brought in, their times kept, held until settleImported; answers their new ids, in order. */
  importPosts(tx: Tx, posts: ImportedPost[]): Promise<number[]> {
    return this.store.importPosts(tx, posts);
  }

  /** Votes on posts importPosts holds, held with them (one a person and post); answers the post of each vote held. */
  importHeldVotes(tx: Tx, votes: { postId: number; personId: string; createdAt: string | null }[]): Promise<number[]> {
    return this.store.importHeldVotes(tx, votes);
  }

  /**
   * Writes the posts importPosts holds with ids in [from, to) (to null: all the rest), each once
   * with its counts (the votes held on it, the comments the importer brings to it), then their
   * votes; the comments on them follow (CommentsService.settleImported).
   */
  settleImported(tx: Tx, workspaceId: string, from: number, to: number | null, counts: { postId: number; votes: number; comments: number }[]): void {
    this.store.settleImported(tx, workspaceId, from, to, counts, 5_000);
  }

  /** Marks imported posts as merged into others, without moving votes (the source lists them). */
  setMergedInto(tx: Tx, workspaceId: string, merges: { postId: number; into: number }[]): void {
    this.store.setMergedInto(tx, workspaceId, merges);
  }

  /** Votes brought in on posts already written (one a person and post); answers the post of each vote added, for countImported. */
  importVotes(tx: Tx, workspaceId: string, votes: { postId: number; personId: string; createdAt: string | null }[]): Promise<number[]> {
    return this.store.importVotes(tx, workspaceId, votes);
  }

  /**
   * Counts votes and comments brought in on their posts: the importer calls it once a post, at
   * the end, since every change of a post's row rewrites its index entries (its search keys too).
   */
  countImported(tx: Tx, workspaceId: string, counts: { postId: number; votes: number; comments: number }[]): void {
    this.store.addCounts(tx, workspaceId, counts);
  }
}
