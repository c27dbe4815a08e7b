import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { BoardsService } from '../boards/boards.service';
import { AppError } from '../common/app-error';
import { Page, pageOf } from '../common/page.query';
import type { Caller } from '../common/request-context';
import { Links } from '../config/links';
import { inPreparedTransaction, PreparedSql, preparedRows, readRows, sqlInt, sqlText, updateReturning } from '../database/queries';
import { EventsService } from '../webhooks/events.service';
import { announceSiteChange } from '../workspaces/site-changes';
import { AuthorInput, WorkspacesService } from '../workspaces/workspaces.service';
import { PostCategory, PostEntity, PostStatus } from './post.entity';
import { PostResponse, PostRow, postSelect, toPostResponse, VoterResponse } from './post.mapper';
import { StatusChangeEntity } from './status-change.entity';
import { isDistributed, managerIsDistributed } from '../database/distribution';

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
  limit: number;
  offset: number;
}

export interface PostPage {
  data: PostResponse[];
  has_more: boolean;
  next_offset: number | null;
}

/** A post with its author's vote, read back as postSelect reads it; no row when the board is not there. */
const CREATE_POST: PreparedSql = {
  label: 'create_post',
  sql: `WITH board AS (SELECT id FROM boards WHERE workspace_id = $1 AND slug = $2),
             inserted AS (
               INSERT INTO posts (workspace_id, board_id, title, body, category, author_id, votes)
               SELECT $1, board.id, $3, $4, $5, $6, 1 FROM board
               RETURNING *),
             vote AS (INSERT INTO votes (workspace_id, post_id, person_id) SELECT workspace_id, id, author_id FROM inserted)
        ${postSelect('inserted')}`,
  types: ['uuid', 'text', 'text', 'text', 'text', 'uuid'],
};

/**
 * `create` on Citus (see createOnCitus): the board and the post's id (the sequence, on the
 * coordinator); then the post, its author's vote, the post as postSelect reads it and the
 * event's endpoints, each a single-shard statement.
 */
const ON_CITUS = {
  board: { label: 'create_board', sql: `SELECT id FROM boards WHERE workspace_id = $1 AND slug = $2`, types: ['uuid', 'text'] },
  insert: {
    label: 'create_insert',
    sql: `INSERT INTO posts (workspace_id, id, board_id, title, body, category, author_id, votes) VALUES ($1, $2, $3, $4, $5, $6, $7, 1)`,
    types: ['uuid', 'bigint', 'uuid', 'text', 'text', 'text', 'uuid'],
  },
  vote: { label: 'create_vote', sql: `INSERT INTO votes (workspace_id, post_id, person_id) VALUES ($1, $2, $3)`, types: ['uuid', 'bigint', 'uuid'] },
  read: { label: 'create_read', sql: `${postSelect()} WHERE p.workspace_id = $1 AND p.id = $2`, types: ['uuid', 'bigint'] },
} satisfies Record<string, PreparedSql>;

const ORDER = {
  new: 'p.created_at DESC, p.id DESC',
  top: 'p.votes DESC, p.created_at DESC, p.id DESC',
} as const;

/**
 * How many posts, in the order asked, a search first walks for its page: 40 times the rows
 * the page needs (offset + limit + 1), so that a term in one post in 40 or more is answered
 * there, deep pages included; at least 1,000, and at most 20,000 (walking 41,000 posts that
 * did not fill the page took 185-390 ms on a busy 2-core machine).
 */
const walkLength = (needed: number) => Math.min(20_000, Math.max(1_000, 40 * needed));

/** `%`, `_` and `\` stand for themselves in a search term. */
const likePattern = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

@Injectable()
export class PostsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly boards: BoardsService,
    private readonly workspaces: WorkspacesService,
    private readonly events: EventsService,
    private readonly links: Links,
  ) {}

  async list(actor: Reader, filter: PostFilter): Promise<PostPage> {
    const params: unknown[] = [actor.workspaceId];
    const where = ['p.workspace_id = $1'];
    const boardId = filter.boardId ?? (filter.board ? (await this.boards.findBySlug(actor.workspaceId, filter.board)).id : undefined);
    if (boardId) {
      params.push(boardId);
      where.push(`p.board_id = $${params.length}`);
    }
    if (filter.publicOnly) where.push('p.board_id IN (SELECT b.id FROM boards b WHERE b.workspace_id = $1 AND b.public)');
    if (filter.status) {
      params.push(filter.status);
      where.push(`p.status = $${params.length}`);
    }
    if (!filter.includeMerged) where.push('p.merged_into_id IS NULL');
    // Terms never hold white space, so matching `title || ' ' || body` is matching either one.
    const terms = (filter.q ?? '').split(/\s+/).filter(Boolean);
    const search = terms.map((term) => {
      params.push(likePattern(term));
      return `(p.title || ' ' || p.body) ILIKE $${params.length}`;
    });
    // The page's bounds are written in: a LIMIT given as a parameter is planned as a tenth of the
    // table, so a prepared statement's generic plan hashed every post of the workspace.
    const [limit, offset] = [sqlInt(filter.limit + 1), sqlInt(filter.offset)];
    const order = ORDER[filter.sort];
    // A first page without search terms is one of a few statements, prepared once per connection
    // and soon planned once for all (planning it cost about as much as running it). Deeper pages
    // and searches are planned afresh, for their own values.
    const prepared = search.length === 0 && filter.offset === 0;
    const read = async (page: string, values = params) => {
      const sql = `${postSelect(page)} ORDER BY ${order}`;
      const rows = prepared ? await preparedRows<PostRow>(this.db, 'list_posts', sql, values) : await readRows<PostRow>(this.db, sql, values);
      return pageOf(
        rows.map((row) => toPostResponse(row, actor.workspaceSlug, this.links)),
        filter,
      );
    };
    const matches = [...where, ...search].join(' AND ');
    if (search.length === 0) {
      return read(`(SELECT * FROM posts p WHERE ${matches} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset})`);
    }
    // A wrong guess of how frequent the terms are is slow either way: walking the workspace
    // in order for a term that is rare in it, or fetching every match of a term that is
    // everywhere (250,000 posts at a million, 2 s). So: first a walk of the posts in order,
    // which stops as soon as the page is full and is enough for a frequent term, deep pages
    // included; then, when the walk did not fill the page, every candidate that the
    // workspace's search keys give (WorkspaceSearchKeys), checked with ILIKE. The fence
    // (OFFSET 0) keeps the other conditions out of the index scan: the LIMIT cannot pull the
    // planner back to the ordered walk, and no other index on the workspace is read beside it.
    const needed = filter.offset + filter.limit + 1;
    const walk = walkLength(needed);
    if (needed <= walk) {
      const walked = await read(
        `(SELECT * FROM (SELECT * FROM posts p WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${walk}) p
           WHERE ${search.join(' AND ')} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset})`,
      );
      if (walked.has_more) return walked;
    }
    // On Citus the workspace is named too: else the candidates are looked for in every shard.
    const scope = (await isDistributed(this.db)) ? 'p.workspace_id = $1 AND ' : '';
    const keys = `${scope}chorus_search_keys(p.workspace_id, p.title || ' ' || p.body) @> chorus_search_term_keys($1::uuid, $${params.length + 1}::text[])`;
    return read(
      `(SELECT * FROM (SELECT * FROM posts p WHERE ${keys} OFFSET 0) p WHERE ${matches} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset})`,
      [...params, terms],
    );
  }

  async get(actor: Reader, id: number, manager: EntityManager = this.db.manager): Promise<PostResponse> {
    const rows: PostRow[] = await manager.query(`${postSelect()} WHERE p.workspace_id = $1 AND p.id = $2`, [
      actor.workspaceId,
      id,
    ]);
    if (rows.length === 0) throw AppError.notFound('post');
    return toPostResponse(rows[0], actor.workspaceSlug, this.links);
  }

  /**
   * Creates a post with its author's vote, and `post.created`: the board lookup, both inserts
   * and the read of the new post are one statement, the event another. Posting as the key's
   * creator (no `author`) takes two round trips in all (see inPreparedTransaction).
   */
  async create(actor: Actor, input: NewPost): Promise<PostResponse> {
    const args = (authorId: string) => [actor.workspaceId, input.board, input.title, input.body ?? '', input.category ?? 'feature', authorId];
    // On Citus the post's statement cannot be one CTE: createOnCitus, or createApart with an author.
    if (!input.author && (await isDistributed(this.db))) return this.createOnCitus(actor, input);
    if (!input.author) {
      return inPreparedTransaction(this.db, async (tx) => {
        const rows = await tx.run<PostRow>(CREATE_POST, args(actor.personId).map(sqlText));
        const post = this.created(actor, input, rows);
        await this.events.recordAndCommit(tx, actor.workspaceId, 'post.created', { post }, actor.personId);
        return post;
      });
    }
    const author = input.author;
    return this.db.transaction(async (manager) => {
      let authorId = actor.personId;
      if (author) {
        // An unknown board is a 404 before any problem with the author.
        await this.boards.findBySlug(actor.workspaceId, input.board, manager);
        authorId = (await this.workspaces.resolveAuthor(actor.workspaceId, author, manager)).id;
      }
      if (await managerIsDistributed(manager)) return this.createApart(manager, actor, input, authorId);
      const post = this.created(actor, input, await manager.query(CREATE_POST.sql, args(authorId)));
      await this.events.record(manager, actor.workspaceId, 'post.created', { post }, actor.personId);
      return post;
    });
  }

  /** The post CREATE_POST made, or 404 for a board that is not there. */
  private created(actor: Actor, input: NewPost, rows: PostRow[]): PostResponse {
    if (rows.length === 0) throw AppError.notFound(`board "${input.board}"`);
    return toPostResponse(rows[0], actor.workspaceSlug, this.links);
  }

  /**
   * `create` on Citus, posting as the key's creator, in three round trips (ON_CITUS): the board
   * and the post's id; the post, the vote, the post read back and the event's endpoints; the
   * event, its NOTIFYs and the commit. (TypeORM's transaction of the same statements took nine.)
   */
  private createOnCitus(actor: Actor, input: NewPost): Promise<PostResponse> {
    return inPreparedTransaction(this.db, async (tx) => {
      const ws = sqlText(actor.workspaceId);
      const [boards, [{ id }]] = (await tx.batch([
        { statement: ON_CITUS.board, args: [ws, sqlText(input.board)] },
        `SELECT nextval('posts_id_seq')::text AS id`,
      ])) as [{ id: string }[], { id: string }[]];
      if (boards.length === 0) throw AppError.notFound(`board "${input.board}"`);
      const postId = sqlInt(Number(id));
      const author = sqlText(actor.personId);
      const results = await tx.batch([
        {
          statement: ON_CITUS.insert,
          args: [ws, postId, sqlText(boards[0].id), sqlText(input.title), sqlText(input.body ?? ''), sqlText(input.category ?? 'feature'), author],
        },
        { statement: ON_CITUS.vote, args: [ws, postId, author] },
        { statement: ON_CITUS.read, args: [ws, postId] },
        this.events.subscribed(actor.workspaceId, 'post.created'),
      ]);
      const post = this.created(actor, input, results[2] as PostRow[]);
      const endpoints = (results[3] as { id: string }[]).map((e) => e.id);
      await this.events.recordApartAndCommit(tx, actor.workspaceId, 'post.created', { post }, endpoints, actor.personId);
      return post;
    });
  }

  /**
   * `create` on Citus with an author, in four single-shard statements: there, a statement whose tables are
   * joined to the rows a CTE inserted is not one workspace's, and Citus would send those rows
   * to every node (and commit on every node in two phases).
   */
  private async createApart(manager: EntityManager, actor: Actor, input: NewPost, authorId: string): Promise<PostResponse> {
    const [board]: { id: string }[] = await manager.query(`SELECT id FROM boards WHERE workspace_id = $1 AND slug = $2`, [
      actor.workspaceId,
      input.board,
    ]);
    if (!board) throw AppError.notFound(`board "${input.board}"`);
    const [inserted]: { id: string }[] = await manager.query(
      `INSERT INTO posts (workspace_id, board_id, title, body, category, author_id, votes)
       VALUES ($1, $2, $3, $4, $5, $6, 1) RETURNING id`,
      [actor.workspaceId, board.id, input.title, input.body ?? '', input.category ?? 'feature', authorId],
    );
    await manager.query(`INSERT INTO votes (workspace_id, post_id, person_id) VALUES ($1, $2, $3)`, [actor.workspaceId, inserted.id, authorId]);
    const post = await this.get(actor, Number(inserted.id), manager);
    await this.events.record(manager, actor.workspaceId, 'post.created', { post }, actor.personId);
    return post;
  }

  /** Sets a post's status. The same status again changes nothing and sends nothing. */
  async setStatus(actor: Actor, id: number, status: PostStatus): Promise<PostResponse> {
    return this.db.transaction(async (manager) => {
      const current = await this.lock(manager, actor.workspaceId, [id]);
      const previous = current.get(id)?.status;
      if (!previous) throw AppError.notFound('post');
      if (previous === status) return this.get(actor, id, manager);
      await manager.update(PostEntity, { workspaceId: actor.workspaceId, id }, { status, updatedAt: () => 'now()' });
      await manager.getRepository(StatusChangeEntity).insert({
        workspaceId: actor.workspaceId,
        postId: id,
        fromStatus: previous,
        toStatus: status,
        changedBy: actor.personId,
      });
      const post = await this.get(actor, id, manager);
      await this.events.record(manager, actor.workspaceId, 'post.status_changed', { post, previous_status: previous }, actor.personId);
      return post;
    });
  }

  /**
   * Merges post `id` into `into`: the merged post is closed and points at the target, and its
   * voters' votes count on the target (once per person).
   */
  async merge(actor: Actor, id: number, into: number): Promise<PostResponse> {
    return this.db.transaction(async (manager) => {
      const posts = await this.lock(manager, actor.workspaceId, [id, into]);
      const source = posts.get(id)!;
      this.refuseMerge(posts, id, into);
      const ws = actor.workspaceId;
      await manager.query(
        `INSERT INTO votes (workspace_id, post_id, person_id, created_at)
         SELECT workspace_id, $3, person_id, created_at FROM votes WHERE workspace_id = $1 AND post_id = $2
         ON CONFLICT DO NOTHING`,
        [ws, id, into],
      );
      await this.recountVotes(manager, ws, into);
      await manager.update(
        PostEntity,
        { workspaceId: ws, id },
        { status: 'closed', mergedIntoId: into, updatedAt: () => 'now()' },
      );
      await manager.getRepository(StatusChangeEntity).insert({
        workspaceId: ws,
        postId: id,
        fromStatus: source.status,
        toStatus: 'closed',
        mergedIntoId: into,
        changedBy: actor.personId,
      });
      const post = await this.get(actor, id, manager);
      await this.events.record(
        manager,
        ws,
        'post.status_changed',
        { post, previous_status: source.status, merged_into: post.merged_into },
        actor.personId,
      );
      return post;
    });
  }

  /** Which of these posts a person's vote is on. */
  async votedBy(reader: Reader, personId: string, postIds: number[]): Promise<Set<number>> {
    const rows = await readRows<{ post_id: string }>(
      this.db,
      `SELECT post_id FROM votes WHERE workspace_id = $1 AND post_id = ANY ($2::bigint[]) AND person_id = $3`,
      [reader.workspaceId, postIds, personId],
    );
    return new Set(rows.map((row) => Number(row.post_id)));
  }

  /**
   * Refuses a merge that `merge` would refuse, changing nothing (the dashboard asks before it
   * merges, and asks only about a merge that can be made).
   */
  async checkMerge(actor: Reader, id: number, into: number): Promise<void> {
    const rows = await this.db.getRepository(PostEntity).findBy({ workspaceId: actor.workspaceId, id: In([id, into]) });
    this.refuseMerge(new Map(rows.map((row) => [row.id, row])), id, into);
  }

  private refuseMerge(posts: Map<number, PostEntity>, id: number, into: number): void {
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
  }

  /** The people who voted for a post, newest vote first: names only, never an email. */
  async listVoters(actor: Actor, id: number, page: Page): Promise<{ data: VoterResponse[]; has_more: boolean; next_offset: number | null }> {
    await this.get(actor, id);
    const rows: VoterResponse[] = await this.db.query(
      `SELECT p.name FROM votes v JOIN people p ON p.workspace_id = v.workspace_id AND p.id = v.person_id
        WHERE v.workspace_id = $1 AND v.post_id = $2
        ORDER BY v.created_at DESC, v.person_id DESC LIMIT $3 OFFSET $4`,
      [actor.workspaceId, id, page.limit + 1, page.offset],
    );
    return pageOf(rows, page);
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
    return this.db.transaction(async (manager) => {
      const chain = await this.lockMergeChain(manager, actor.workspaceId, id);
      const personId = voter ? (await this.workspaces.resolveAuthor(actor.workspaceId, voter, manager, 'voter')).id : actor.personId;
      if (!personId) throw AppError.invalid('voter', 'is required');
      return this.castVote(manager, { ...actor, personId: actor.personId ?? personId }, chain.at(-1)!, personId);
    });
  }

  /** Adds a known person's vote, as `addVote` does (the demo seed and tests). */
  async vote(actor: Actor, postId: number, personId: string): Promise<{ post: PostResponse; added: boolean }> {
    return this.db.transaction(async (manager) => {
      const chain = await this.lockMergeChain(manager, actor.workspaceId, postId);
      return this.castVote(manager, actor, chain.at(-1)!, personId);
    });
  }

  /**
   * Removes `voter`'s vote (a known email, or omitted: the key's creator) from the post and
   * from every post it was merged into, where it counts. Removing a vote that is not there
   * changes nothing. A name alone names no one: refused.
   */
  async removeVote(actor: Actor, id: number, voter?: AuthorInput): Promise<boolean> {
    if (voter && !voter.email) throw AppError.invalid('voter.email', 'is required to remove a vote');
    return this.db.transaction(async (manager) => {
      const chain = await this.lockMergeChain(manager, actor.workspaceId, id);
      const personId = voter ? (await this.workspaces.findByEmail(actor.workspaceId, voter.email!, manager))?.id : actor.personId;
      if (!personId) return false;
      const removed = await updateReturning<{ post_id: string }>(
        manager,
        `DELETE FROM votes WHERE workspace_id = $1 AND post_id = ANY($2::bigint[]) AND person_id = $3 RETURNING post_id`,
        [actor.workspaceId, chain, personId],
      );
      for (const postId of new Set(removed.map((row) => Number(row.post_id)))) {
        await this.recountVotes(manager, actor.workspaceId, postId);
      }
      // No event tells of a vote taken back; the public pages must still hear of it.
      if (removed.length > 0) await announceSiteChange(manager, actor.workspaceId);
      return removed.length > 0;
    });
  }

  /** One vote per person: a new one is counted and sends `post.voted`. */
  private async castVote(manager: EntityManager, actor: Actor, postId: number, personId: string) {
    const inserted: unknown[] = await manager.query(
      `INSERT INTO votes (workspace_id, post_id, person_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING person_id`,
      [actor.workspaceId, postId, personId],
    );
    if (inserted.length === 0) return { post: await this.get(actor, postId, manager), added: false };
    await this.recountVotes(manager, actor.workspaceId, postId);
    const post = await this.get(actor, postId, manager);
    const [voter]: { name: string }[] = await manager.query(`SELECT name FROM people WHERE workspace_id = $1 AND id = $2`, [
      actor.workspaceId,
      personId,
    ]);
    await this.events.record(manager, actor.workspaceId, 'post.voted', { post, voter: { name: voter.name } }, actor.personId);
    return { post, added: true };
  }

  /**
   * Locks a post and the posts it was merged into, in the order the merges point (a merge
   * target may itself have been merged later). The last one is where votes count.
   */
  private async lockMergeChain(manager: EntityManager, workspaceId: string, id: number): Promise<number[]> {
    const chain: number[] = [];
    for (let next: number | null = id; next !== null && !chain.includes(next); ) {
      const post = (await this.lock(manager, workspaceId, [next])).get(next);
      if (!post) throw AppError.notFound('post');
      chain.push(next);
      next = post.mergedIntoId;
    }
    return chain;
  }

  private async recountVotes(manager: EntityManager, workspaceId: string, postId: number): Promise<void> {
    await manager.query(
      `UPDATE posts SET votes = (SELECT count(*) FROM votes WHERE workspace_id = $1 AND post_id = $2)
        WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, postId],
    );
  }

  /** Locks posts of a workspace for this transaction, in id order so that two merges cannot deadlock. */
  async lock(manager: EntityManager, workspaceId: string, ids: number[]): Promise<Map<number, PostEntity>> {
    const rows = await manager
      .getRepository(PostEntity)
      .createQueryBuilder('p')
      .where('p.workspace_id = :workspaceId AND p.id IN (:...ids)', { workspaceId, ids })
      .orderBy('p.id')
      .setLock('pessimistic_write')
      .getMany();
    return new Map(rows.map((row) => [row.id, row]));
  }
}
