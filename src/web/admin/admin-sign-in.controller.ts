import { Body, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { IsDefined, IsString } from 'class-validator';
import type { Response } from 'express';
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
/** The sign-in cookie of an address that is no member's: a workspace that does not exist. */
const NOWHERE = '00000000-0000-0000-0000-000000000000';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Members sign in to the dashboard with an emailed code (the visitors' rules and limits; the
 * page says the same whether or not the address is a member's) or with a one-time link from
 * the CLI (`member sign-in-link`). A member of several workspaces then picks one. The session is
 * the dashboard's own cookie, 12 hours from last use.
 */
@PageController('admin', AdminGuard)
export class AdminSignInController {
  constructor(
    private readonly signIn: SignInService,
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
    const [first] = await this.workspaces.memberships(email);
    const secret = newSecret();
    setCookie(res, this.cookies.signIn, `${first?.workspace.id ?? NOWHERE}.${secret}`);
    if (first) {
      await this.signIn.sendCode({
        workspaceId: first.workspace.id,
        place: first.workspace.name,
        kind: 'member',
        email,
        name: null,
        flow: secret,
        link: (token) => this.linkUrl(first.workspace.id, token),
      });
    }
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
    const claim = flow ? await this.signIn.checkCode(flow.workspaceId, 'member', flow.secret, form.code ?? '') : 'Ask for a code first.';
    if (typeof claim === 'string') return this.codeForm(req, res, redirect, { values: {}, errors: { _form: claim } }, 400);
    return this.toWorkspace(req, res, claim.email, null, redirect);
  }

  @Post('sign-in/choose')
  @SignedOut()
  @HttpCode(303)
  async choose(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Body() form: Form): Promise<Page | Redirect> {
    const flow = this.flow(req);
    const email = flow ? await this.signIn.verifiedEmail(flow.workspaceId, 'member', flow.secret) : null;
    if (!email) throw PageError.forbidden('This sign-in has expired. Sign in again.');
    return this.toWorkspace(req, res, email, form.workspace ?? '', this.paths.back(form.redirect));
  }

  @Get('sign-in/link/:token')
  @SignedOut()
  async link(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Param('token') token: string): Promise<Page> {
    const parsed = parseLink(token);
    const problem = parsed ? await this.signIn.checkLink(parsed.workspaceId, 'member', parsed.token) : 'This sign-in link is not valid.';
    const html = adminLinkPage(this.paths.frame(req), {
      problem,
      action: this.paths.admin(`/admin/sign-in/link/${token}`),
      token: this.tokens.for(this.startFlow(req, res, parsed?.workspaceId ?? NOWHERE)),
      again: this.paths.admin('/admin/sign-in'),
    });
    return new Page(html, PRIVATE, problem ? 410 : 200);
  }

  @Post('sign-in/link/:token')
  @SignedOut()
  @HttpCode(303)
  async useLink(@Req() req: ChorusRequest, @Res({ passthrough: true }) res: Response, @Param('token') token: string): Promise<Page | Redirect> {
    const parsed = parseLink(token);
    const claim = parsed ? await this.signIn.useLink(parsed.workspaceId, 'member', parsed.token) : 'This sign-in link is not valid.';
    if (typeof claim === 'string') throw new PageError(410, 'This link no longer works', claim);
    return this.toWorkspace(req, res, claim.email, parsed!.workspaceId, this.paths.admin('/admin'));
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
   * of several who has not chosen gets the choice. A new session every time, the one before ended.
   */
  private async toWorkspace(req: ChorusRequest, res: Response, email: string, chosen: string | null, redirect: string): Promise<Page | Redirect> {
    const memberships = await this.workspaces.memberships(email);
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
    if (req.admin) await this.sessions.end(req.admin.member.token);
    const { token } = await this.sessions.start(membership.workspace.id, 'member', membership.personId);
    setCookie(res, this.cookies.session, token);
    clearCookie(res, this.cookies.signIn);
    return new Redirect(redirect);
  }

  /** This browser's sign-in under way: `<workspace id>.<secret>`, set when a code was asked for. */
  private flow(req: ChorusRequest): { workspaceId: string; secret: string } | null {
    const [workspaceId, secret] = (readCookie(req, this.cookies.signIn) ?? '').split('.');
    return UUID.test(workspaceId ?? '') && secret ? { workspaceId, secret } : null;
  }

  /** Keeps this browser's sign-in cookie (or starts one) and answers it: the page's form token is bound to it. */
  private startFlow(req: ChorusRequest, res: Response, workspaceId = NOWHERE): string {
    const flow = this.flow(req);
    const value = flow ? `${flow.workspaceId}.${flow.secret}` : `${workspaceId}.${newSecret()}`;
    setCookie(res, this.cookies.signIn, value);
    return value;
  }

  private linkUrl(workspaceId: string, token: string): string {
    return this.paths.url(`/admin/sign-in/link/${workspaceId}.${token}`);
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

/** A dashboard link's token: `<workspace id>.<code id>.<secret>`. */
function parseLink(token: string): { workspaceId: string; token: string } | null {
  const dot = token.indexOf('.');
  const workspaceId = token.slice(0, dot);
  return dot > 0 && UUID.test(workspaceId) ? { workspaceId, token: token.slice(dot + 1) } : null;
}
