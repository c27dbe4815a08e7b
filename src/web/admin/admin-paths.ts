import { Injectable } from '@nestjs/common';
import type { ChorusRequest } from '../../common/request-context';
import { Links } from '../../config/links';
import { FormTokens } from '../shared/form-tokens';
import { pathUnder } from '../shared/redirects';
import type { AdminFrame } from './views/frame';

/** Where the dashboard's pages are, as the browser sees them (with BASE_URL's prefix). */
@Injectable()
export class AdminPaths {
  constructor(
    private readonly links: Links,
    private readonly tokens: FormTokens,
  ) {}

  admin(path: string): string {
    return this.links.adminPath(path);
  }

  /** An absolute dashboard address (for an email). */
  url(path: string): string {
    return `${this.links.dashboardOrigin}${this.links.adminPath(path)}`;
  }

  /** Where to go after signing in: a dashboard page, or else the dashboard's start. */
  back(wanted: unknown): string {
    return pathUnder(this.admin('/admin'), wanted);
  }

  frame(req: ChorusRequest): AdminFrame {
    const admin = req.admin;
    return {
      workspace: admin?.workspace ?? null,
      member: admin ? { name: admin.member.name, token: this.tokens.for(admin.member.token) } : null,
      paths: { admin: (path) => this.links.adminPath(path), assets: this.links.adminPath('') },
      canonical: `${this.links.dashboardOrigin}${this.links.adminPath(req.path)}`,
    };
  }

  /** The form token of the signed-in member's forms. */
  token(req: ChorusRequest): string {
    return this.tokens.for(req.admin!.member.token);
  }
}
