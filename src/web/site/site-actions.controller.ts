import { Body, HttpCode, Param, Post, Req } from '@nestjs/common';
import type { ChorusRequest } from '../../common/request-context';
import { PageController } from '../shared/page-controller';
import { Page, Redirect } from '../shared/page-response';
import { SitePageViews } from './site-page-views';
import { postIdOf } from './site-pages.controller';
import { SitePaths } from './site-paths';
import { SiteGuard } from './site.guard';
import { SiteService } from './site.service';
import { VisitorActionsService } from './visitor-actions.service';

type Form = Record<string, string | undefined>;

/** Only what was typed goes back into a form: never its token. */
const typed = (form: Form, fields: string[]) => Object.fromEntries(fields.map((f) => [f, typeof form[f] === 'string' ? form[f]! : '']));

/**
 * What a signed-in visitor does: vote (and take it back), post, comment. Each is a form post
 * (the guard has checked its token) answered 303 back to the page; a refused form comes back
 * as its page with the errors beside the fields and what was typed kept.
 */
@PageController(':workspace/:board', SiteGuard)
export class SiteActionsController {
  constructor(
    private readonly site: SiteService,
    private readonly actions: VisitorActionsService,
    private readonly views: SitePageViews,
    private readonly paths: SitePaths,
  ) {}

  @Post('p/:post/vote')
  @HttpCode(303)
  async vote(@Req() req: ChorusRequest, @Param('post') segment: string, @Body() form: Form): Promise<Redirect> {
    const site = req.site!;
    const { post } = await this.site.actionablePost(site, postIdOf(segment));
    await this.actions.vote(site, post, form.intent !== 'remove');
    return new Redirect(this.paths.back(site, form.back));
  }

  @Post('p/:post/comments')
  @HttpCode(303)
  async comment(@Req() req: ChorusRequest, @Param('post') segment: string, @Body() form: Form): Promise<Redirect | Page> {
    const site = req.site!;
    const { post, board } = await this.site.actionablePost(site, postIdOf(segment));
    const here = this.paths.local(site, post.url);
    const outcome = await this.actions.comment(site, post, form);
    if ('done' in outcome) return new Redirect(`${here}#comment-${outcome.done.id}`);
    const html = await this.views.post(site, post, board, here, { values: typed(form, ['body']), errors: outcome.errors });
    return new Page(html, { public: false }, 400);
  }

  @Post('posts')
  @HttpCode(303)
  async create(@Req() req: ChorusRequest, @Param('board') slug: string, @Body() form: Form): Promise<Redirect | Page> {
    const site = req.site!;
    const board = await this.site.board(site, slug);
    const outcome = await this.actions.post(site, board, form);
    if ('done' in outcome) return new Redirect(this.paths.local(site, outcome.done.url));
    const here = this.paths.of(site, `/${board.slug}`);
    const values = typed(form, ['title', 'body', 'category']);
    if ('similar' in outcome) return new Page(await this.views.similar(site, board, outcome.similar, values), { public: false });
    const html = await this.views.board(site, board, { sort: 'new', offset: 0 }, here, { values, errors: outcome.errors });
    return new Page(html, { public: false }, 400);
  }
}
