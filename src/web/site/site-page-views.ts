import { Injectable } from '@nestjs/common';
import type { BoardEntity } from '../../boards/board.entity';
import type { PostResponse } from '../../posts/post.mapper';
import type { FormState } from '../shared/forms';
import type { SiteContext } from './site-context';
import { SitePaths } from './site-paths';
import { BoardQuery, PAGE_SIZE, SiteService } from './site.service';
import { boardPage } from './views/board';
import { postPage } from './views/post';
import { similarPage, SimilarView } from './views/similar';

/** The query of a board's address, in one order, leaving out what is the default. */
function boardSearch(query: BoardQuery): string {
  const params = new URLSearchParams();
  if (query.sort !== 'new') params.set('sort', query.sort);
  if (query.status) params.set('status', query.status);
  if (query.q) params.set('q', query.q);
  if (query.offset > 0) params.set('offset', String(query.offset));
  const search = params.toString();
  return search ? `?${search}` : '';
}

/**
 * The board and post pages, with everything they show: read by the page itself, and again by a
 * form post that was refused (shown with the form as typed and its errors).
 */
@Injectable()
export class SitePageViews {
  constructor(
    private readonly site: SiteService,
    private readonly paths: SitePaths,
  ) {}

  async board(site: SiteContext, board: BoardEntity, query: BoardQuery, here: string, form: FormState): Promise<string> {
    const { page, voted } = await this.site.boardPage(site, board, query);
    const base = this.paths.of(site, `/${board.slug}`);
    const link = (change: Partial<BoardQuery>) => base + boardSearch({ ...query, ...change });
    return boardPage(this.paths.frame(site, here), {
      board,
      query,
      posts: page.data.map((post) => ({ post, href: this.paths.local(site, post.url), voted: voted.has(post.id) })),
      link,
      feed: `${base}/feed.atom`,
      canonical: this.paths.url(site.workspace.slug, `/${board.slug}${boardSearch(query)}`),
      prev: query.offset > 0 ? link({ offset: Math.max(0, query.offset - PAGE_SIZE) }) : null,
      next: page.has_more ? link({ offset: page.next_offset! }) : null,
      form,
      postAction: `${base}/posts`,
    });
  }

  /** The "Similar posts" step before a new post: the posts like its title, and "Post anyway" with what was typed. */
  async similar(site: SiteContext, board: BoardEntity, posts: PostResponse[], typed: Record<string, string>): Promise<string> {
    const voted = await this.site.votedBy(site, posts);
    const base = this.paths.of(site, `/${board.slug}`);
    return similarPage(this.paths.frame(site, base), {
      board,
      boardHref: base,
      canonical: this.paths.url(site.workspace.slug, `/${board.slug}`),
      posts: posts.map((post) => ({ post, href: this.paths.local(site, post.url), voted: voted.has(post.id) })),
      typed: typed as SimilarView['typed'],
      postAction: `${base}/posts`,
    });
  }

  async post(site: SiteContext, post: PostResponse, board: BoardEntity, here: string, form: FormState): Promise<string> {
    const [comments, voted, shipped] = await Promise.all([this.site.comments(site, post), this.site.votedBy(site, [post]), this.site.shippedIn(site, post)]);
    const href = this.paths.local(site, post.url);
    return postPage(this.paths.frame(site, here), {
      board,
      boardHref: this.paths.of(site, `/${board.slug}`),
      listed: { post, href, voted: voted.has(post.id) },
      comments,
      canonical: post.url,
      form,
      commentAction: `${href}/comments`,
      shippedIn: shipped.map((entry) => ({ title: entry.title, href: this.paths.local(site, entry.url) })),
    });
  }
}
