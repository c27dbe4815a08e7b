import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import type { ChorusRequest } from '../../common/request-context';
import { routeMetadata } from '../../common/route-metadata';
import { Links } from '../../config/links';
import { WorkspacesService } from '../../workspaces/workspaces.service';
import { PageError } from '../shared/page-error';
import { PageSessions } from '../shared/page-sessions';
import { SessionCookies } from '../shared/session-cookies';

const SIGNED_OUT = 'chorus:signed-out';
/** A dashboard page for someone not (yet) signed in: the sign-in pages. */
export const SignedOut = () => SetMetadata(SIGNED_OUT, true);

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
    private readonly pages: PageSessions,
    private readonly workspaces: WorkspacesService,
    private readonly cookies: SessionCookies,
    private readonly links: Links,
    reflector: Reflector,
  ) {
    this.signedOut = routeMetadata<boolean>(reflector, SIGNED_OUT);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<ChorusRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const area = this.cookies.dashboard;
    const { session: member } = await this.pages.signedIn(req, res, area);
    const workspace = member ? await this.workspaces.findById(member.workspaceId) : null;
    if (member && workspace) req.admin = { member, workspace: { id: workspace.id, slug: workspace.slug, name: workspace.name, plan: workspace.plan } };
    if (this.signedOut(context)) {
      // The sign-in forms' token is bound to the sign-in under way (its cookie), there being no session yet.
      if (req.method === 'POST') this.pages.checkSignInForm(req, area);
      return true;
    }
    if (req.method === 'POST') {
      this.pages.checkSessionForm(req, req.admin?.member ?? null);
      return true;
    }
    if (!req.admin) {
      const back = this.links.adminPath(req.originalUrl);
      throw PageError.seeOther(`${this.links.adminPath('/admin/sign-in')}?redirect=${encodeURIComponent(back)}`);
    }
    return true;
  }
}
