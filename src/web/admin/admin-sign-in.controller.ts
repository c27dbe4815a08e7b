import { Body, Get, HttpCode, Logger, Param, Post, Query, Req, Res } from '@nestjs/common';
import { IsDefined, IsString } from 'class-validator';
import type { Response } from 'express';
import { afterResponse } from '../../common/after-response';
import { AppError } from '../../common/app-error';
import type { ChorusRequest } from '../../common/request-context';
import { IsEmailAddress, Trim, validateForm } from '../../common/validation';
import { clientNetwork } from '../../rate-limit/client-network';
import { WorkspacesService } from '../../workspaces/workspaces.service';
import { clearCookie, readCookie, setCookie } from '../shared/cookies';
import { FormTokens } from '../shared/form-tokens';
import { emptyForm, FormState } from '../shared/forms';
import { PageError } from '../shared/page-error';
import { PageController } from '../shared/page-controller';
import { Page, Redirect } from '../shared/page-response';
import { newSecret, SessionsService } from '../shared/sessions.service';
import { SignInService } from '../shared/sign-in.service';
import { DashboardClaim, DashboardSignIns } from './dashboard-sign-ins.service';
import { AdminCookies, AdminGuard, SignedOut } from './admin.guard';
import { AdminPaths } from './admin-paths';
import { adminCodePage, adminLinkPage, adminSignInPage, choosePage } from './views/sign-in';

class AdminSignInDto {
  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @IsEmailAddress()
  email: string;
}

type Form = Record<string, string | undefined>;
const PRIVATE = { public: false as const };
/** A sign-in cookie's value: a random secret (newSecret), and nothing else. */
const FLOW = /^[A-Za-z0-9_-]{43}$/;

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

  constructor(
    private readonly signIn: SignInService,
    private readonly signIns: DashboardSignIns,
    private readonly workspaces: WorkspacesService,
    private readonly sessions: SessionsService,
    private readonly cookies: AdminCookies,
    private readonly tokens: FormTokens,
    private readonly paths: AdminPaths,
  ) {}

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
    const checked = await validateForm(AdminSignInDto, typed, ['email']);
    if ('errors' in checked) return this.emailForm(req, res, redirect, { values: typed, errors: checked.errors }, 400);
    const email = checked.value.email;
    try {
      await this.signIn.withinLimits(email, clientNetwork(req.ip));
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'rate_limited') throw error;
      res.setHeader('Retry-After', error.headers['Retry-After']);
      return this.emailForm(req, res, redirect, { values: typed, errors: { _form: `${error.message} Nothing was sent.` } }, 429);
    }
    // Whether the address is a member's is looked up once the answer is out.
    const { id, flow } = await this.signIns.ask(email);
    setCookie(res, this.cookies.signIn, flow);
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
    const flow = this.flow(req);
    const claim = flow ? await this.signIns.checkCode(flow, form.code ?? '') : 'Ask for a code first.';
    if (typeof claim === 'string') return this.codeForm(req, res, redirect, { values: {}, errors: { _form: claim } }, 400);
    return this.toWorkspace(req, res, claim, null, redirect);
  }

  @Post('sign-in/choose')
  @SignedOut()
  @HttpCode(303)
  async choose(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Body() form: Form): Promise<Page | Redirect> {
    const flow = this.flow(req);
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
      token: this.tokens.for(this.startFlow(req, res)),
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
    await this.sessions.end(req.admin!.member.token);
    clearCookie(res, this.cookies.session);
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
        token: this.tokens.for(readCookie(req, this.cookies.signIn)!),
        redirect,
        workspaces: memberships.map((m) => m.workspace),
      });
      return new Page(html, PRIVATE);
    }
    if (!(await this.signIns.use(claim.id))) throw PageError.forbidden('This sign-in was used already, or has expired. Sign in again.');
    if (req.admin) await this.sessions.end(req.admin.member.token);
    const { token } = await this.sessions.start(membership.workspace.id, 'member', membership.personId);
    setCookie(res, this.cookies.session, token);
    clearCookie(res, this.cookies.signIn);
    return new Redirect(redirect);
  }

  /** This browser's sign-in under way: its cookie's secret (new at each code asked for), if any. */
  private flow(req: ChorusRequest): string | null {
    const flow = readCookie(req, this.cookies.signIn) ?? '';
    return FLOW.test(flow) ? flow : null;
  }

  /** Keeps this browser's sign-in cookie (or starts one) and answers it: the page's form token is bound to it. */
  private startFlow(req: ChorusRequest, res: Response): string {
    const value = this.flow(req) ?? newSecret();
    setCookie(res, this.cookies.signIn, value);
    return value;
  }

  private withRedirect(path: string, redirect: string): string {
    const base = this.paths.admin(path);
    return redirect === this.paths.admin('/admin') ? base : `${base}?redirect=${encodeURIComponent(redirect)}`;
  }

  private emailForm(req: ChorusRequest, res: Response, redirect: string, form: FormState, status = 200): Page {
    const html = adminSignInPage(this.paths.frame(req), {
      form,
      action: this.paths.admin('/admin/sign-in'),
      token: this.tokens.for(this.startFlow(req, res)),
      redirect,
    });
    return new Page(html, PRIVATE, status);
  }

  private codeForm(req: ChorusRequest, res: Response, redirect: string, form: FormState, status = 200): Page {
    const html = adminCodePage(this.paths.frame(req), {
      form,
      action: this.paths.admin('/admin/sign-in/code'),
      token: this.tokens.for(this.startFlow(req, res)),
      redirect,
      again: this.withRedirect('/admin/sign-in', redirect),
    });
    return new Page(html, PRIVATE, status);
  }
}
