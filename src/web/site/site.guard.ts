import { CanActivate, ExecutionContext, Injectable, NotFoundException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import type { ChorusRequest } from '../../common/request-context';
import { routeMetadata } from '../../common/route-metadata';
import { Links } from '../../config/links';
import { isReservedWorkspaceSlug } from '../../workspaces/reserved-slugs';
import { clearCookie, cookieSpec, CookieSpec, readCookie } from '../shared/cookies';
import { FORM_KIND, FormKind } from '../shared/form-kind';
import { CSRF_FIELD } from '../shared/forms';
import { FormTokens } from '../shared/form-tokens';
import { PageCache } from '../shared/page-cache';
import { PageError } from '../shared/page-error';
import { SESSION_LIFETIME_MS, SessionsService } from '../shared/sessions.service';
import { SIGN_IN_LIFETIME_MS } from '../../notifications/sign-in-email';
import { SiteService } from './site.service';

/**
 * The site's cookies: a visitor's session in a workspace (`chorus-<slug>`), and a sign-in under
 * way there (`chorus-signin.<slug>`). A slug holds no dot, so no cookie name of one workspace is
 * another's, whatever their slugs (`signin-acme`'s session is not `acme`'s sign-in), nor one of
 * the dashboard's (`chorus.admin…`, see AdminCookies): a name without a dot is a session's, and
 * the part before a dot says whose cookie it is.
 */
@Injectable()
export class SiteCookies {
  constructor(private readonly links: Links) {}

  session(workspaceSlug: string): CookieSpec {
    return cookieSpec(`chorus-${workspaceSlug}`, { path: '/', secure: this.links.siteIsHttps, maxAgeMs: SESSION_LIFETIME_MS.visitor });
  }

  signIn(workspaceSlug: string): CookieSpec {
    return cookieSpec(`chorus-signin.${workspaceSlug}`, { path: '/', secure: this.links.siteIsHttps, maxAgeMs: SIGN_IN_LIFETIME_MS });
  }
}

/**
 * Every route of a workspace's public site passes here: the workspace (a 404 page if there is
 * none), who is signed in (a stale session cookie is cleared), the version of its pages, and for
 * a form post the token bound to the session, or to the sign-in under way for the sign-in
 * forms (else a 403 page, and nothing changes). Cross-site posts were refused before routing
 * (page-requests.ts).
 */
@Injectable()
export class SiteGuard implements CanActivate {
  private readonly formKind: (context: ExecutionContext) => FormKind | undefined;

  constructor(
    private readonly site: SiteService,
    private readonly sessions: SessionsService,
    private readonly cookies: SiteCookies,
    private readonly tokens: FormTokens,
    private readonly cache: PageCache,
    reflector: Reflector,
  ) {
    this.formKind = routeMetadata<FormKind>(reflector, FORM_KIND);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ChorusRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const slug = req.params.workspace as string;
    // `/api/…` and the like are the service's own, never a workspace: answered as unrouted.
    if (isReservedWorkspaceSlug(slug)) throw new NotFoundException();
    const workspace = await this.site.workspace(slug);
    const version = this.cache.version(workspace.id);
    const spec = this.cookies.session(slug);
    const token = readCookie(req, spec);
    let visitor = token ? await this.sessions.find('visitor', token) : null;
    if (visitor && visitor.workspaceId !== workspace.id) visitor = null;
    if (token && !visitor) clearCookie(res, spec);
    req.site = { workspace, visitor, anonymous: token === undefined, version };
    if (req.method === 'POST') this.checkForm(context, req);
    return true;
  }

  private checkForm(context: ExecutionContext, req: ChorusRequest): void {
    const sent = (req.body as Record<string, unknown>)[CSRF_FIELD];
    if (this.formKind(context) === 'sign-in') {
      const flow = readCookie(req, this.cookies.signIn(req.site!.workspace.slug));
      if (flow && this.tokens.matches(flow, sent)) return;
    } else {
      const visitor = req.site!.visitor;
      if (!visitor) throw PageError.forbidden('You are not signed in any more. Sign in, then try again.');
      if (this.tokens.matches(visitor.token, sent)) return;
    }
    throw PageError.forbidden('This form is out of date, or was not sent from this page. Nothing was changed: go back, reload the page and try again.');
  }
}
