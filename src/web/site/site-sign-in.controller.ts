import { Body, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { ChorusRequest } from '../../common/request-context';
import { validateForm } from '../../common/validation';
import { Links } from '../../config/links';
import { SsoRefusal, SsoService } from '../../workspaces/sso.service';
import { SignInRefused, WorkspacesService } from '../../workspaces/workspaces.service';
import { SignInForm } from '../shared/form-kind';
import { emptyForm, FormState } from '../shared/forms';
import { PageError } from '../shared/page-error';
import { PageController } from '../shared/page-controller';
import { Page, Redirect } from '../shared/page-response';
import { PageSessions } from '../shared/page-sessions';
import type { AreaCookies } from '../shared/session-cookies';
import { SignInDto } from '../shared/sign-in.dto';
import { SignInService } from '../shared/sign-in.service';
import type { SiteContext } from './site-context';
import { SiteGuard } from './site.guard';
import { SitePaths } from './site-paths';
import { codePage, linkPage, signInPage } from './views/sign-in';

type Form = Record<string, string | undefined>;
const PRIVATE = { public: false as const };

/** The page a refused sign-in gets (a blocked person; an address at a blocked or disposable domain), whichever way it came. */
const refused = () => new PageError(403, 'Sign-in refused', new SignInRefused().message);

/**
 * Signing in to a workspace's public site, by an emailed code (or its link) or by SSO from the
 * customer's app, and signing out. Every sign-in starts a new session; the way back is always a
 * page of this workspace's site.
 */
@PageController(':workspace', SiteGuard)
export class SiteSignInController {
  constructor(
    private readonly signIn: SignInService,
    private readonly sso: SsoService,
    private readonly workspaces: WorkspacesService,
    private readonly pages: PageSessions,
    private readonly paths: SitePaths,
    private readonly links: Links,
  ) {}

  @Get('sign-in')
  form(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Query('redirect') redirect: unknown): Page {
    return this.signInForm(req, res, this.paths.back(req.site!, redirect), emptyForm());
  }

  @Post('sign-in')
  @SignInForm()
  @HttpCode(303)
  async send(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Body() form: Form): Promise<Page | Redirect> {
    const site = req.site!;
    const redirect = this.paths.back(site, form.redirect);
    const typed = { email: form.email ?? '', name: form.name ?? '' };
    const checked = await validateForm(SignInDto, typed, ['email', 'name']);
    if ('errors' in checked) return this.signInForm(req, res, redirect, { values: typed, errors: checked.errors }, 400);
    // Before the limits and the email: an address the workspace refuses is sent nothing.
    if (await this.workspaces.refusesCodeSignIn(site.workspace.id, checked.value.email)) throw refused();
    const limited = await this.pages.refusedByLimits(req, res, checked.value.email);
    if (limited) return this.signInForm(req, res, redirect, { values: typed, errors: { _form: limited } }, 429);
    await this.signIn.sendCode({
      workspaceId: site.workspace.id,
      place: site.workspace.name,
      kind: 'visitor',
      email: checked.value.email,
      name: checked.value.name,
      flow: this.pages.keepFlow(req, res, this.area(req)),
      link: (token) => this.paths.url(site.workspace.slug, `/sign-in/link/${token}`),
    });
    return new Redirect(this.codePath(site, redirect));
  }

  @Get('sign-in/code')
  async code(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Query('redirect') redirect: unknown): Promise<Page> {
    return this.codeForm(req, res, this.paths.back(req.site!, redirect), emptyForm());
  }

  @Post('sign-in/code')
  @SignInForm()
  @HttpCode(303)
  async enter(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Body() form: Form): Promise<Page | Redirect> {
    const site = req.site!;
    const redirect = this.paths.back(site, form.redirect);
    const claim = await this.signIn.checkCode(site.workspace.id, 'visitor', this.pages.keepFlow(req, res, this.area(req)), form.code ?? '');
    if (typeof claim === 'string') return this.codeForm(req, res, redirect, { values: {}, errors: { _form: claim } }, 400);
    await this.startSession(req, res, claim.email, claim.name, false);
    return new Redirect(redirect);
  }

  @Get('sign-in/link/:token')
  async link(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Param('token') token: string): Promise<Page> {
    const site = req.site!;
    const problem = await this.signIn.checkLink(site.workspace.id, 'visitor', token);
    const html = linkPage(this.paths.frame(site, this.here(req)), {
      problem,
      action: this.paths.of(site, `/sign-in/link/${token}`),
      token: this.pages.signInForm(req, res, this.area(req)).token,
      canonical: this.paths.url(site.workspace.slug, '/sign-in'),
      again: this.paths.of(site, '/sign-in'),
    });
    return new Page(html, PRIVATE, problem ? 410 : 200);
  }

  @Post('sign-in/link/:token')
  @SignInForm()
  @HttpCode(303)
  async useLink(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Param('token') token: string): Promise<Redirect> {
    const site = req.site!;
    const claim = await this.signIn.useLink(site.workspace.id, 'visitor', token);
    if (typeof claim === 'string') throw new PageError(410, 'This link no longer works', claim);
    await this.startSession(req, res, claim.email, claim.name, false);
    return new Redirect(this.paths.home(site));
  }

  /** `/<workspace>/sso?token=<jwt>&redirect=<path>`: the customer's app vouches for its user. */
  @Get('sso')
  async singleSignOn(
    @Req() req: ChorusRequest,
    @Res({ passthrough: true }) res: Response,
    @Query('token') token: unknown,
    @Query('redirect') redirect: unknown,
  ): Promise<Redirect> {
    const site = req.site!;
    if (typeof token !== 'string' || token === '') throw PageError.badRequest('Single sign-on did not work', 'The address has no token ("token").');
    let who;
    try {
      who = await this.sso.signIn(site.workspace.id, token);
    } catch (error) {
      if (error instanceof SsoRefusal) throw PageError.badRequest('Single sign-on did not work', error.message);
      throw error;
    }
    await this.startSession(req, res, who.email, who.name, true);
    return new Redirect(this.paths.back(site, redirect));
  }

  @Post('sign-out')
  @HttpCode(303)
  async signOut(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Body() form: Form): Promise<Redirect> {
    const site = req.site!;
    await this.pages.end(res, this.area(req), site.visitor!);
    return new Redirect(this.paths.back(site, form.back));
  }

  /**
   * A new session (a new id at every sign-in, the one before ended), and its cookie; the refused
   * page for a blocked person, and for an emailed code's address at a domain blocked since the
   * code was sent (SSO is the customer's app vouching: its addresses are not checked by domain).
   */
  private async startSession(req: ChorusRequest, res: Response, email: string, name: string | null, sso: boolean): Promise<void> {
    const site = req.site!;
    if (!sso && (await this.workspaces.refusesCodeSignIn(site.workspace.id, email))) throw refused();
    let person;
    try {
      person = await this.workspaces.signInPerson(site.workspace.id, { email, name: name ?? email.split('@')[0] }, sso);
    } catch (error) {
      if (error instanceof SignInRefused) throw refused();
      throw error;
    }
    await this.pages.start(res, this.area(req), site.workspace.id, person.id, site.visitor);
  }

  /** The cookies of this workspace's site (or of its embed, in the widget's frame). */
  private area(req: ChorusRequest): AreaCookies {
    return req.site!.cookies;
  }

  private here(req: ChorusRequest): string {
    return this.links.publicPath(req.originalUrl);
  }

  private codePath(site: SiteContext, redirect: string): string {
    const path = this.paths.of(site, '/sign-in/code');
    return redirect === this.paths.home(site) ? path : `${path}?redirect=${encodeURIComponent(redirect)}`;
  }

  private signInForm(req: ChorusRequest, res: Response, redirect: string, form: FormState, status = 200): Page {
    const site = req.site!;
    const html = signInPage(this.paths.frame(site, this.here(req)), {
      form,
      action: this.paths.of(site, '/sign-in'),
      token: this.pages.signInForm(req, res, this.area(req)).token,
      redirect,
      canonical: this.paths.url(site.workspace.slug, '/sign-in'),
    });
    return new Page(html, PRIVATE, status);
  }

  private async codeForm(req: ChorusRequest, res: Response, redirect: string, form: FormState, status = 200): Promise<Page> {
    const site = req.site!;
    const { flow, token } = this.pages.signInForm(req, res, this.area(req));
    const html = codePage(this.paths.frame(site, this.here(req)), {
      form,
      action: this.paths.of(site, '/sign-in/code'),
      token,
      redirect,
      canonical: this.paths.url(site.workspace.slug, '/sign-in'),
      email: await this.signIn.pendingEmail(site.workspace.id, 'visitor', flow),
      again: this.paths.signIn(site, redirect),
    });
    return new Page(html, PRIVATE, status);
  }
}
