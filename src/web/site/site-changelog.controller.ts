import { Body, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import type { ChorusRequest } from '../../common/request-context';
import { ChangelogService } from '../../changelog/changelog.service';
import type { ChangelogEntryResponse } from '../../changelog/changelog.mapper';
import { Links } from '../../config/links';
import { pageAddress, pageOffset, PageQuery } from '../shared/page-address';
import { PageController } from '../shared/page-controller';
import { Page, Redirect } from '../shared/page-response';
import { readerOf, SiteContext } from './site-context';
import { SiteGuard } from './site.guard';
import { SitePaths } from './site-paths';
import { changelogFeed } from './views/feeds';
import { changelogPage, entryPage, ShownEntry } from './views/changelog';

export const CHANGELOG_PAGE_SIZE = 10;
const FEED_SIZE = 50;

/** An entry's address ends in `<id>-<title slug>` or `<id>`. */
function entryIdOf(segment: string): number {
  const id = /^([1-9]\d{0,15})(?:-|$)/.exec(segment)?.[1];
  if (!id || !Number.isSafeInteger(Number(id))) throw AppError.notFound('changelog entry');
  return Number(id);
}

const publicCaching = (site: SiteContext) => ({ public: true as const, workspaceId: site.workspace.id, version: site.version });

/**
 * The public changelog: its pages (ten entries a page), an entry's page, its Atom feed, and a
 * signed-in visitor's "Subscribe to updates". Registered before the pages that take any board's
 * slug (`changelog` is no board's).
 */
@PageController(':workspace/changelog', SiteGuard)
export class SiteChangelogController {
  constructor(
    private readonly changelog: ChangelogService,
    private readonly paths: SitePaths,
    private readonly links: Links,
  ) {}

  private shown(site: SiteContext, entry: ChangelogEntryResponse): ShownEntry {
    return {
      entry,
      href: this.paths.local(site, entry.url),
      posts: entry.posts.map((post) => ({ title: post.title, href: this.paths.local(site, post.url) })),
    };
  }

  @Get()
  @PageQuery('offset')
  async list(@Req() req: ChorusRequest, @Query('offset') offsetText?: string): Promise<Page> {
    const site = req.site!;
    const offset = pageOffset(offsetText);
    const page = await this.changelog.listPublished(readerOf(site), { limit: CHANGELOG_PAGE_SIZE, offset });
    const base = this.paths.of(site, '/changelog');
    const at = (n: number) => (n > 0 ? `${base}?offset=${n}` : base);
    const frame = this.paths.frame(site, this.links.publicPath(pageAddress(req.originalUrl, ['offset'])));
    const subscription = site.visitor
      ? { subscribed: await this.changelog.isSubscribed(site.workspace.id, site.visitor.personId), action: `${base}/subscription` }
      : null;
    const html = changelogPage(frame, {
      entries: page.data.map((entry) => this.shown(site, entry)),
      own: this.paths.url(site.workspace.slug),
      canonical: this.paths.url(site.workspace.slug, `/changelog${offset > 0 ? `?offset=${offset}` : ''}`),
      feed: `${base}/feed.atom`,
      prev: offset > 0 ? at(Math.max(0, offset - CHANGELOG_PAGE_SIZE)) : null,
      next: page.has_more ? at(page.next_offset!) : null,
      subscription,
    });
    return new Page(html, site.visitor ? { public: false } : publicCaching(site));
  }

  @Get('feed.atom')
  async feed(@Req() req: ChorusRequest): Promise<Page> {
    const site = req.site!;
    const page = await this.changelog.listPublished(readerOf(site), { limit: FEED_SIZE, offset: 0 });
    const url = this.paths.url(site.workspace.slug, '/changelog');
    const xml = changelogFeed({ workspaceName: site.workspace.name, url, selfUrl: `${url}/feed.atom`, own: this.paths.url(site.workspace.slug), entries: page.data });
    return new Page(xml, publicCaching(site), 200, 'application/atom+xml; charset=utf-8');
  }

  @Get(':entry')
  async entry(@Req() req: ChorusRequest, @Param('entry') segment: string): Promise<Page | Redirect> {
    const site = req.site!;
    const entry = await this.changelog.getPublished(readerOf(site), entryIdOf(segment));
    const own = this.paths.local(site, entry.url);
    if (this.links.publicPath(req.path) !== own) return new Redirect(own, 301);
    const frame = this.paths.frame(site, own);
    const html = entryPage(frame, { shown: this.shown(site, entry), own: this.paths.url(site.workspace.slug), back: this.paths.of(site, '/changelog') });
    return new Page(html, publicCaching(site));
  }

  /** "Subscribe to updates" (and back): a form post, answered 303 back to the changelog. */
  @Post('subscription')
  @HttpCode(303)
  async subscribe(@Req() req: ChorusRequest, @Body() form: Record<string, string | undefined>): Promise<Redirect> {
    const site = req.site!;
    if (!site.visitor) throw AppError.notFound('page');
    await this.changelog.setSubscribed(site.workspace.id, site.visitor.personId, form.intent !== 'remove');
    return new Redirect(this.paths.of(site, '/changelog'));
  }
}
