import { Get, Param, Query, Req } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import type { ChorusRequest } from '../../common/request-context';
import { FormQueryValidation } from '../../common/validation';
import { Links } from '../../config/links';
import { ListPostsQuery } from '../../posts/dto/list-posts.query';
import { emptyForm } from '../shared/forms';
import { pageAddress, PageQuery } from '../shared/page-address';
import { PageController } from '../shared/page-controller';
import { Page, Redirect } from '../shared/page-response';
import { SiteContext } from './site-context';
import { SiteGuard } from './site.guard';
import { SitePaths } from './site-paths';
import { BoardQuery, SiteService } from './site.service';
import { atomFeed, sitemap } from './views/feeds';
import { homePage } from './views/home';
import { roadmapPage } from './views/roadmap';
import { SitePageViews } from './site-page-views';

/** A post's address ends in `<id>-<title slug>` or `<id>`. */
export function postIdOf(segment: string): number {
  const id = /^([1-9]\d{0,15})(?:-|$)/.exec(segment)?.[1];
  if (!id || !Number.isSafeInteger(Number(id))) throw AppError.notFound('post');
  return Number(id);
}

/** The query of a board's address (the API list's parameters that a board page uses). */
const BOARD_QUERY = ['sort', 'status', 'q', 'offset'];

const publicCaching = (site: SiteContext) => ({ public: true as const, workspaceId: site.workspace.id, version: site.version });

/**
 * The pages anyone reads: a workspace's boards, a board's posts, a post, the roadmap, a board's
 * feed and the sitemap. Each reads through SiteService (the API's services) and hands plain
 * data to a view; what may be kept and revalidated is PageResponses' business. A page's own
 * address (`here`) holds only the query parameters it uses (PageQuery), so that any other
 * spelling of it is the same page, byte for byte.
 */
@PageController(':workspace', SiteGuard)
export class SitePagesController {
  constructor(
    private readonly site: SiteService,
    private readonly paths: SitePaths,
    private readonly views: SitePageViews,
    private readonly links: Links,
  ) {}

  @Get()
  async home(@Req() req: ChorusRequest): Promise<Page> {
    const site = req.site!;
    const boards = await this.site.home(site);
    const frame = this.paths.frame(site, this.links.publicPath(pageAddress(req.originalUrl)));
    const html = homePage(frame, {
      boards: boards.map((board) => ({ board, href: this.paths.of(site, `/${board.slug}`) })),
      canonical: this.paths.url(site.workspace.slug),
    });
    return new Page(html, publicCaching(site));
  }

  @Get('roadmap')
  async roadmap(@Req() req: ChorusRequest): Promise<Page> {
    const site = req.site!;
    const columns = await this.site.roadmap(site);
    const frame = this.paths.frame(site, this.links.publicPath(pageAddress(req.originalUrl)));
    const html = roadmapPage(frame, {
      columns: columns.map((c) => ({ status: c.status, posts: c.posts.map((post) => ({ post, href: this.paths.local(site, post.url) })) })),
      canonical: this.paths.url(site.workspace.slug, '/roadmap'),
    });
    return new Page(html, publicCaching(site));
  }

  @Get('sitemap.xml')
  async sitemap(@Req() req: ChorusRequest): Promise<Page> {
    const site = req.site!;
    const { boards, posts, entries } = await this.site.sitemap(site);
    const urls = [
      { loc: this.paths.url(site.workspace.slug) },
      { loc: this.paths.url(site.workspace.slug, '/roadmap') },
      { loc: this.paths.url(site.workspace.slug, '/changelog') },
      ...entries.map((e) => ({ loc: e.url, lastmod: new Date(e.updated_at) })),
      ...boards.map((b) => ({ loc: this.paths.url(site.workspace.slug, `/${b.slug}`) })),
      ...posts.map((p) => ({ loc: p.url, lastmod: p.updated_at })),
    ];
    return new Page(sitemap(urls), publicCaching(site), 200, 'application/xml; charset=utf-8');
  }

  @Get(':board')
  @PageQuery(...BOARD_QUERY)
  async board(@Req() req: ChorusRequest, @Param('board') slug: string, @Query(FormQueryValidation) query: ListPostsQuery): Promise<Page> {
    const site = req.site!;
    const board = await this.site.board(site, slug);
    const boardQuery: BoardQuery = { sort: query.sort ?? 'new', status: query.status, q: query.q || undefined, offset: Number(query.offset ?? 0) };
    const here = this.links.publicPath(pageAddress(req.originalUrl, BOARD_QUERY));
    return new Page(await this.views.board(site, board, boardQuery, here, emptyForm()), publicCaching(site));
  }

  @Get(':board/feed.atom')
  async feed(@Req() req: ChorusRequest, @Param('board') slug: string): Promise<Page> {
    const site = req.site!;
    const board = await this.site.board(site, slug);
    const posts = await this.site.feed(site, board);
    const boardUrl = this.paths.url(site.workspace.slug, `/${board.slug}`);
    const xml = atomFeed({ workspaceName: site.workspace.name, board, boardUrl, selfUrl: `${boardUrl}/feed.atom`, posts });
    return new Page(xml, publicCaching(site), 200, 'application/atom+xml; charset=utf-8');
  }

  @Get(':board/p/:post')
  async post(@Req() req: ChorusRequest, @Param('board') boardSlug: string, @Param('post') segment: string): Promise<Page | Redirect> {
    const site = req.site!;
    const found = await this.site.post(site, postIdOf(segment));
    if ('moved' in found) return new Redirect(this.paths.local(site, found.moved), 301);
    const own = this.paths.local(site, found.post.url);
    if (this.paths.requested(site, req.path) !== own) return new Redirect(own + (req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : ''), 301);
    return new Page(await this.views.post(site, found.post, found.board, own, emptyForm()), publicCaching(site));
  }
}
