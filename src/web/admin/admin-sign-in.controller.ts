import { Body, Get, HttpCode, Logger, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { afterResponse } from '../../common/after-response';
import type { ChorusRequest } from '../../common/request-context';
import { validateForm } from '../../common/validation';
import { WorkspacesService } from '../../workspaces/workspaces.service';
import { emptyForm, FormState } from '../shared/forms';
import { PageError } from '../shared/page-error';
import { PageController } from '../shared/page-controller';
import { Page, Redirect } from '../shared/page-response';
import { PageSessions } from '../shared/page-sessions';
import { AreaCookies, SessionCookies } from '../shared/session-cookies';
import { SignInEmailDto } from '../shared/sign-in.dto';
import { DashboardClaim, DashboardSignIns } from './dashboard-sign-ins.service';
import { AdminGuard, SignedOut } from './admin.guard';
import { AdminPaths } from './admin-paths';
import { adminCodePage, adminLinkPage, adminSignInPage, choosePage } from './views/sign-in';

type Form = Record<string, string | undefined>;
const PRIVATE = { public: false as const };

/**
 * Members sign in to the dashboard with an emailed code (the visitors' rules and limits) or with
 * a one-time link from the CLI (`member sign-in-link`). A member of several workspaces then picks
 * one. The session is the dashboard's own cookie, 12 hours from last use. Nothing answered tells
 * whether an address is a member's: the same pages, a sign-in cookie that is an opaque secret for
 * everyone, and the same work before the answer (DashboardSignIns). Each sign-in is used once.
 */
@PageController('admin', AdminGuard)
export class AdminSignInController {
  private readonly logger = new Logger('DashboardSignIn');
  private readonly area: AreaCookies;

  constructor(
    private readonly signIns: DashboardSignIns,
    private readonly workspaces: WorkspacesService,
    private readonly pages: PageSessions,
    private readonly paths: AdminPaths,
    cookies: SessionCookies,
  ) {
    this.area = cookies.dashboard;
  }

  @Get('sign-in')
  @SignedOut()
  form(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Query('redirect') redirect: unknown): Page {
    return this.emailForm(req, res, this.paths.back(redirect), emptyForm());
  }

  @Post('sign-in')
  @SignedOut()
  @HttpCode(303)
  async send(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Body() form: Form): Promise<Page | Redirect> {
    const redirect = this.paths.back(form.redirect);
    const typed = { email: form.email ?? '' };
    const checked = await validateForm(SignInEmailDto, typed, ['email']);
    if ('errors' in checked) return this.emailForm(req, res, redirect, { values: typed, errors: checked.errors }, 400);
    const email = checked.value.email;
    const refused = await this.pages.refusedByLimits(req, res, email);
    if (refused) return this.emailForm(req, res, redirect, { values: typed, errors: { _form: refused } }, 429);
    // Whether the address is a member's is looked up once the answer is out; a new sign-in cookie for each.
    const { id, flow } = await this.signIns.ask(email);
    this.pages.keepFlow(req, res, this.area, flow);
    afterResponse(res, this.logger, 'Sending a dashboard sign-in email', () =>
      this.signIns.deliver(id, (token) => this.paths.url(`/admin/sign-in/link/${token}`)),
    );
    return new Redirect(this.withRedirect('/admin/sign-in/code', redirect));
  }

  @Get('sign-in/code')
  @SignedOut()
  code(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Query('redirect') redirect: unknown): Page {
    return this.codeForm(req, res, this.paths.back(redirect), emptyForm());
  }

  @Post('sign-in/code')
  @SignedOut()
  @HttpCode(303)
  async enter(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Body() form: Form): Promise<Page | Redirect> {
    const redirect = this.paths.back(form.redirect);
    const flow = this.pages.flow(req, this.area);
    const claim = flow ? await this.signIns.checkCode(flow, form.code ?? '') : 'Ask for a code first.';
    if (typeof claim === 'string') return this.codeForm(req, res, redirect, { values: {}, errors: { _form: claim } }, 400);
    return this.toWorkspace(req, res, claim, null, redirect);
  }

  @Post('sign-in/choose')
  @SignedOut()
  @HttpCode(303)
  async choose(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Body() form: Form): Promise<Page | Redirect> {
    const flow = this.pages.flow(req, this.area);
    const claim = flow ? await this.signIns.verified(flow) : null;
    if (!claim) throw PageError.forbidden('This sign-in was used already, or has expired. Sign in again.');
    return this.toWorkspace(req, res, claim, form.workspace ?? '', this.paths.back(form.redirect));
  }

  @Get('sign-in/link/:token')
  @SignedOut()
  async link(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Param('token') token: string): Promise<Page> {
    const problem = await this.signIns.checkLink(token);
    const html = adminLinkPage(this.paths.frame(req), {
      problem,
      action: this.paths.admin(`/admin/sign-in/link/${token}`),
      token: this.pages.signInForm(req, res, this.area).token,
      again: this.paths.admin('/admin/sign-in'),
    });
    return new Page(html, PRIVATE, problem ? 410 : 200);
  }

  @Post('sign-in/link/:token')
  @SignedOut()
  @HttpCode(303)
  async useLink(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Param('token') token: string): Promise<Page | Redirect> {
    const claim = await this.signIns.useLink(token);
    if (typeof claim === 'string') throw new PageError(410, 'This link no longer works', claim);
    return this.toWorkspace(req, res, claim, claim.workspaceId, this.paths.admin('/admin'));
  }

  @Post('sign-out')
  @HttpCode(303)
  async signOut(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response): Promise<Redirect> {
    await this.pages.end(res, this.area, req.admin!.member);
    return new Redirect(this.paths.admin('/admin/sign-in'));
  }

  /**
   * Signs in to the workspace chosen (or the only one) where the address is a member; a member
   * of several who has not chosen gets the choice. The sign-in is used up by the session made
   * from it. A new session every time, the one before ended.
   */
  private async toWorkspace(req: ChorusRequest, res: Response, claim: DashboardClaim, chosen: string | null, redirect: string): Promise<Page | Redirect> {
    const memberships = await this.workspaces.memberships(claim.email);
    const membership = chosen !== null ? memberships.find((m) => m.workspace.id === chosen) : memberships.length === 1 ? memberships[0] : undefined;
    if (!membership && (chosen !== null || memberships.length === 0)) {
      throw PageError.forbidden('This address is not a member of that workspace (any more).');
    }
    if (!membership) {
      const html = choosePage(this.paths.frame(req), {
        action: this.paths.admin('/admin/sign-in/choose'),
        token: this.pages.signInToken(this.pages.flow(req, this.area)!),
        redirect,
        workspaces: memberships.map((m) => m.workspace),
      });
      return new Page(html, PRIVATE);
    }
    if (!(await this.signIns.use(claim.id))) throw PageError.forbidden('This sign-in was used already, or has expired. Sign in again.');
    await this.pages.start(res, this.area, membership.workspace.id, membership.personId, req.admin?.member);
    return new Redirect(redirect);
  }

  private withRedirect(path: string, redirect: string): string {
    const base = this.paths.admin(path);
    return redirect === this.paths.admin('/admin') ? base : `${base}?redirect=${encodeURIComponent(redirect)}`;
  }

  private emailForm(req: ChorusRequest, res: Response, redirect: string, form: FormState, status = 200): Page {
    const html = adminSignInPage(this.paths.frame(req), {
      form,
      action: this.paths.admin('/admin/sign-in'),
      token: this.pages.signInForm(req, res, this.area).token,
      redirect,
    });
    return new Page(html, PRIVATE, status);
  }

  private codeForm(req: ChorusRequest, res: Response, redirect: string, form: FormState, status = 200): Page {
    const html = adminCodePage(this.paths.frame(req), {
      form,
      action: this.paths.admin('/admin/sign-in/code'),
      token: this.pages.signInForm(req, res, this.area).token,
      redirect,
      again: this.withRedirect('/admin/sign-in', redirect),
    });
    return new Page(html, PRIVATE, status);
  }
}
