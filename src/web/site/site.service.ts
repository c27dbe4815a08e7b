import { Injectable } from '@nestjs/common';
import { BoardEntity } from '../../boards/board.entity';
import { BoardsService } from '../../boards/boards.service';
import { AppError } from '../../common/app-error';
import { CommentResponse } from '../../comments/comment.mapper';
import { CommentsService } from '../../comments/comments.service';
import { ChangelogService } from '../../changelog/changelog.service';
import { PostStatus } from '../../posts/post.entity';
import type { PostResponse } from '../../posts/post.mapper';
import { PostPage, PostsService } from '../../posts/posts.service';
import { WorkspacesService } from '../../workspaces/workspaces.service';
import { PageCache } from '../shared/page-cache';
import { PublicWorkspace, readerOf, SiteContext } from './site-context';

export const PAGE_SIZE = 25;
export const ROADMAP_STATUSES = ['planned', 'in_progress', 'done'] as const satisfies readonly PostStatus[];
const ROADMAP_SIZE = 20;
const FEED_SIZE = 50;
/** The sitemap protocol's limit of addresses in one file. */
const SITEMAP_SIZE = 50_000;
/** Changelog entries the sitemap lists at most (the newest). */
const SITEMAP_ENTRIES = 5_000;

export interface BoardQuery {
  sort: 'new' | 'top';
  status?: PostStatus;
  q?: string;
  offset: number;
}

/** Where a post's page is: here, or (a stale address, a merged post) elsewhere. */
export type PostLookup = { post: PostResponse; board: BoardEntity } | { moved: string };

/**
 * What the public site reads, through the services the API reads with. A private board, its
 * posts and anything about them are `not_found` here, exactly as a board that does not exist.
 */
@Injectable()
export class SiteService {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly boards: BoardsService,
    private readonly posts: PostsService,
    private readonly commentsService: CommentsService,
    private readonly cache: PageCache,
    private readonly changelog: ChangelogService,
  ) {}

  async workspace(slug: string): Promise<PublicWorkspace> {
    const workspace = await this.cache.workspace(slug, async () => {
      const found = await this.workspaces.findBySlug(slug).catch((error) => (error instanceof AppError ? null : Promise.reject(error)));
      return found && { id: found.id, slug: found.slug, name: found.name };
    });
    if (!workspace) throw AppError.notFound('workspace', null);
    return workspace;
  }

  home(site: SiteContext) {
    return this.cache.read(site.workspace.id, site.version, 'boards', () => this.boards.listPublic(site.workspace.id));
  }

  async board(site: SiteContext, slug: string): Promise<BoardEntity> {
    const board = await this.cache.read(site.workspace.id, site.version, `board ${slug}`, () =>
      this.boards.findPublicBySlug(site.workspace.id, slug).catch((error) => (error instanceof AppError ? null : Promise.reject(error))),
    );
    if (!board) throw AppError.notFound(`board "${slug}"`);
    return board;
  }

  /** A page of a public board's posts, as the API lists them (merged ones left out), and which of them the visitor voted for. */
  async boardPage(site: SiteContext, board: BoardEntity, query: BoardQuery): Promise<{ page: PostPage; voted: Set<number> }> {
    const page = await this.posts.list(readerOf(site), {
      boardId: board.id,
      status: query.status,
      q: query.q,
      sort: query.sort,
      includeMerged: false,
      limit: PAGE_SIZE,
      offset: query.offset,
    });
    return { page, voted: await this.votedBy(site, page.data) };
  }

  /**
   * A post by the id in its address, on a public board. Its own address is its `url`: asked for
   * under another slug or board, it has moved there; a merged post has moved to its target's
   * (unless the target is not public, when it is simply not found).
   */
  async post(site: SiteContext, id: number): Promise<PostLookup> {
    const { post, board } = await this.publicPost(site, id);
    if (post.merged_into) {
      const target = await this.posts.visibleTo(readerOf(site), post.merged_into.id, site.visitor?.personId);
      await this.boards.findPublicBySlug(site.workspace.id, target.board.slug);
      return { moved: target.url };
    }
    return { post, board };
  }

  /** A post of a public board, merged or not; a held or rejected one for its author alone. */
  async publicPost(site: SiteContext, id: number): Promise<{ post: PostResponse; board: BoardEntity }> {
    const post = await this.posts.visibleTo(readerOf(site), id, site.visitor?.personId);
    return { post, board: await this.boards.findPublicBySlug(site.workspace.id, post.board.slug) };
  }

  /**
   * A post a visitor may act on (vote, comment): one of a public board that is not merged. A
   * merged post is a redirect for reading only; acting on it is `not_found`, exactly as for an
   * id that does not exist, whatever board its target is on (else a vote would land on a private
   * post, and the difference would tell which ids exist).
   */
  async actionablePost(site: SiteContext, id: number): Promise<{ post: PostResponse; board: BoardEntity }> {
    const found = await this.publicPost(site, id);
    if (found.post.merged_into) throw AppError.notFound('post');
    return found;
  }

  comments(site: SiteContext, post: PostResponse): Promise<CommentResponse[]> {
    return this.commentsService.list(readerOf(site), post.id, site.visitor?.personId);
  }

  /** The top posts of public boards in each roadmap column. */
  async roadmap(site: SiteContext): Promise<{ status: PostStatus; posts: PostResponse[] }[]> {
    return Promise.all(
      ROADMAP_STATUSES.map(async (status) => ({
        status,
        posts: (
          await this.posts.list(readerOf(site), {
            publicOnly: true,
            status,
            sort: 'top',
            includeMerged: false,
            limit: ROADMAP_SIZE,
            offset: 0,
          })
        ).data,
      })),
    );
  }

  /** A board's newest posts, for its feed. */
  async feed(site: SiteContext, board: BoardEntity): Promise<PostResponse[]> {
    const page = await this.posts.list(readerOf(site), { boardId: board.id, sort: 'new', includeMerged: false, limit: FEED_SIZE, offset: 0 });
    return page.data;
  }

  /** Every public board and the posts on them that have a page of their own (never merged ones), and the published changelog entries. */
  async sitemap(
    site: SiteContext,
  ): Promise<{ boards: BoardEntity[]; posts: { url: string; updated_at: Date }[]; entries: { url: string; updated_at: string }[] }> {
    const boards = await this.boards.listPublic(site.workspace.id);
    const entries = (await this.changelog.listPublished(readerOf(site), { limit: SITEMAP_ENTRIES, offset: 0 })).data;
    const posts = await this.posts.newestPublic(readerOf(site), SITEMAP_SIZE - boards.length - entries.length - 3);
    return { boards, posts, entries };
  }

  /** The published changelog entries linking a post (its "Shipped in"). */
  shippedIn(site: SiteContext, post: PostResponse) {
    return this.changelog.linking(readerOf(site), post.id, true);
  }

  /** Which of these posts the signed-in visitor's vote counts on. */
  async votedBy(site: SiteContext, posts: PostResponse[]): Promise<Set<number>> {
    if (!site.visitor || posts.length === 0) return new Set();
    return this.posts.votedBy(readerOf(site), site.visitor.personId, posts.map((p) => p.id));
  }
}
