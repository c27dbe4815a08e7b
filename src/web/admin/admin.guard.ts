import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import type { ChorusRequest } from '../../common/request-context';
import { routeMetadata } from '../../common/route-metadata';
import { Links } from '../../config/links';
import { SIGN_IN_LIFETIME_MS } from '../../notifications/sign-in-email';
import { WorkspacesService } from '../../workspaces/workspaces.service';
import { clearCookie, cookieSpec, CookieSpec, readCookie } from '../shared/cookies';
import { FormTokens } from '../shared/form-tokens';
import { CSRF_FIELD } from '../shared/forms';
import { PageError } from '../shared/page-error';
import { SESSION_LIFETIME_MS, SessionsService } from '../shared/sessions.service';

const SIGNED_OUT = 'chorus:signed-out';
/** A dashboard page for someone not (yet) signed in: the sign-in pages. */
export const SignedOut = () => SetMetadata(SIGNED_OUT, true);

/**
 * The dashboard's cookies (path `/admin`, so the public site never sees them): a member's
 * session, and a sign-in under way. Their names hold a dot after `chorus`, which no cookie of a
 * workspace's site can (SiteCookies): the site's cookies are sent to /admin too.
 */
@Injectable()
export class AdminCookies {
  readonly session: CookieSpec;
  readonly signIn: CookieSpec;

  constructor(links: Links) {
    const rules = { path: links.adminPath('/admin'), secure: links.dashboardIsHttps };
    this.session = cookieSpec('chorus.admin', { ...rules, maxAgeMs: SESSION_LIFETIME_MS.member });
    this.signIn = cookieSpec('chorus.admin-signin', { ...rules, maxAgeMs: SIGN_IN_LIFETIME_MS });
  }
}

/**
 * Every dashboard route passes here: the member's session (12 hours from last use; gone the
 * moment the session is ended or the person is no longer a member) and its workspace. Someone
 * not signed in is sent to sign in (a form post is refused with a 403 page). A form post carries
 * the token bound to the session, or to the sign-in under way for the sign-in forms.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  private readonly signedOut: (context: ExecutionContext) => boolean | undefined;

  constructor(
    private readonly sessions: SessionsService,
    private readonly workspaces: WorkspacesService,
    private readonly cookies: AdminCookies,
    private readonly tokens: FormTokens,
    private readonly links: Links,
    reflector: Reflector,
  ) {
    this.signedOut = routeMetadata<boolean>(reflector, SIGNED_OUT);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ChorusRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const token = readCookie(req, this.cookies.session);
    const member = token ? await this.sessions.find('member', token) : null;
    if (token && !member) clearCookie(res, this.cookies.session);
    const workspace = member ? await this.workspaces.findById(member.workspaceId) : null;
    if (member && workspace) req.admin = { member, workspace: { id: workspace.id, slug: workspace.slug, name: workspace.name, plan: workspace.plan } };
    if (this.signedOut(context)) {
      if (req.method === 'POST') this.checkSignInForm(req);
      return true;
    }
    if (!req.admin) {
      if (req.method === 'POST') throw PageError.forbidden('You are not signed in any more. Sign in, then try again.');
      const back = this.links.adminPath(req.originalUrl);
      throw PageError.seeOther(`${this.links.adminPath('/admin/sign-in')}?redirect=${encodeURIComponent(back)}`);
    }
    if (req.method === 'POST' && !this.tokens.matches(req.admin.member.token, (req.body as Record<string, unknown>)[CSRF_FIELD])) throw stale();
    return true;
  }

  /** The sign-in forms' token is bound to the sign-in under way (its cookie), there being no session yet. */
  private checkSignInForm(req: ChorusRequest): void {
    const flow = readCookie(req, this.cookies.signIn);
    if (!flow || !this.tokens.matches(flow, (req.body as Record<string, unknown>)[CSRF_FIELD])) throw stale();
  }
}

const stale = () =>
  PageError.forbidden('This form is out of date, or was not sent from this page. Nothing was changed: go back, reload the page and try again.');

