import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from './app-config';

function split(url: string): { origin: string; prefix: string } {
  const parsed = new URL(url);
  return { origin: parsed.origin, prefix: parsed.pathname.replace(/\/+$/, '') };
}

/** The title slug of a post URL: lower-case ASCII letters and digits joined by single dashes. */
export function titleSlug(title: string): string {
  return title
    .replace(/[^A-Za-z0-9]+/g, '-')
    .toLowerCase()
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
}

/**
 * Public and dashboard addresses of boards and posts. Absolute (`board`, `post`, …) for what
 * leaves the service (API answers, emails, feeds, canonical links); as paths on their host
 * (`local`, `publicPath`, `adminPath`) for the pages' own links and forms. BASE_URL and
 * PUBLIC_BASE_URL may carry a path prefix, which the proxy in front strips: the service answers
 * every route at its root, and only the addresses it writes carry the prefix.
 */
@Injectable()
export class Links {
  private readonly publicOrigin: string;
  private readonly publicPrefix: string;
  private readonly adminOrigin: string;
  private readonly adminPrefix: string;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    ({ origin: this.publicOrigin, prefix: this.publicPrefix } = split(config.publicBaseUrl));
    ({ origin: this.adminOrigin, prefix: this.adminPrefix } = split(config.baseUrl));
  }

  /** The public site's origin (`https://feedback.example.com`): cross-site checks compare with it. */
  get siteOrigin(): string {
    return this.publicOrigin;
  }

  /** The dashboard's origin. */
  get dashboardOrigin(): string {
    return this.adminOrigin;
  }

  /** Whether the public site is served over https (its cookies are then Secure). */
  get siteIsHttps(): boolean {
    return this.publicOrigin.startsWith('https:');
  }

  get dashboardIsHttps(): boolean {
    return this.adminOrigin.startsWith('https:');
  }

  /** A path of the public site as the browser sees it (with PUBLIC_BASE_URL's prefix). */
  publicPath(path: string): string {
    return this.publicPrefix + path;
  }

  /** A path of the dashboard (or the service's own pages) as the browser sees it (with BASE_URL's prefix). */
  adminPath(path: string): string {
    return this.adminPrefix + path;
  }

  /** A public address without its origin: a link from one public page to another. */
  local(url: string): string {
    return url.startsWith(this.publicOrigin) ? url.slice(this.publicOrigin.length) : url;
  }

  /** An absolute public address of a path of the public site (given without the prefix). */
  publicUrl(path: string): string {
    return this.config.publicBaseUrl + path;
  }

  workspace(workspaceSlug: string): string {
    return `${this.config.publicBaseUrl}/${workspaceSlug}`;
  }

  board(workspaceSlug: string, boardSlug: string): string {
    return `${this.config.publicBaseUrl}/${workspaceSlug}/${boardSlug}`;
  }

  post(workspaceSlug: string, boardSlug: string, id: number, title: string): string {
    const slug = titleSlug(title);
    return `${this.board(workspaceSlug, boardSlug)}/p/${slug ? `${id}-${slug}` : id}`;
  }

  postAdmin(id: number): string {
    return `${this.config.baseUrl}/admin/p/${id}`;
  }

  /** The public changelog of a workspace. */
  changelog(workspaceSlug: string): string {
    return `${this.workspace(workspaceSlug)}/changelog`;
  }

  /** A changelog entry's page: `/<ws>/changelog/<id>-<title slug>` (the slug as for posts). */
  changelogEntry(workspaceSlug: string, id: number, title: string): string {
    const slug = titleSlug(title);
    return `${this.changelog(workspaceSlug)}/${slug ? `${id}-${slug}` : id}`;
  }

  changelogAdmin(id: number): string {
    return `${this.config.baseUrl}/admin/changelog/${id}`;
  }
}
