import { CanActivate, ExecutionContext, Injectable, NotFoundException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import type { ChorusRequest } from '../../common/request-context';
import { routeMetadata } from '../../common/route-metadata';
import { isReservedWorkspaceSlug } from '../../workspaces/reserved-slugs';
import { FORM_KIND, FormKind } from '../shared/form-kind';
import { PageCache } from '../shared/page-cache';
import { PageSessions } from '../shared/page-sessions';
import { SessionCookies } from '../shared/session-cookies';
import { WorkspacesService } from '../../workspaces/workspaces.service';
import { PAGE_HEADERS } from '../shared/page-requests';
import { embedPolicy } from './embed';
import { SiteService } from './site.service';

/**
 * Every route of a workspace's public site passes here: the workspace (a 404 page if there is
 * none), who is signed in (a stale session cookie is cleared), the version of its pages, and for
 * a form post the token bound to the session, or to the sign-in under way for the sign-in
 * forms (else a 403 page, and nothing changes). In the widget's frame (`/embed/…`), the embed's
 * cookies, and `frame-ancestors` with the workspace's allowed origins. Cross-site posts were refused before routing
 * (page-requests.ts).
 */
@Injectable()
export class SiteGuard implements CanActivate {
  private readonly formKind: (context: ExecutionContext) => FormKind | undefined;

  constructor(
    private readonly site: SiteService,
    private readonly pages: PageSessions,
    private readonly cookies: SessionCookies,
    private readonly cache: PageCache,
    private readonly workspaces: WorkspacesService,
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
    const embed = req.embed === true;
    const area = embed ? this.cookies.embed(slug) : this.cookies.site(slug);
    const frameOrigins = embed ? await this.workspaces.widgetOrigins(workspace.id) : [];
    if (embed) {
      res.setHeader('Content-Security-Policy', embedPolicy(PAGE_HEADERS['Content-Security-Policy'], frameOrigins));
      res.removeHeader('X-Frame-Options');
    }
    const { session: visitor, cookie } = await this.pages.signedIn(req, res, area, workspace.id);
    req.site = { workspace, visitor, anonymous: !cookie, version, embed, cookies: area, frameOrigins };
    if (req.method === 'POST') {
      if (this.formKind(context) === 'sign-in') this.pages.checkSignInForm(req, area);
      else this.pages.checkSessionForm(req, visitor);
    }
    return true;
  }
}
