import { Injectable } from '@nestjs/common';
import { Links } from '../../config/links';
import { FormTokens } from '../shared/form-tokens';
import { pathUnder } from '../shared/redirects';
import type { SiteContext } from './site-context';
import type { SiteFrame } from './views/frame';

/** Where the public site's pages are, as the browser sees them (with PUBLIC_BASE_URL's prefix). */
@Injectable()
export class SitePaths {
  constructor(
    private readonly links: Links,
    private readonly tokens: FormTokens,
  ) {}

  home(workspaceSlug: string): string {
    return this.links.publicPath(`/${workspaceSlug}`);
  }

  of(workspaceSlug: string, path: string): string {
    return this.links.publicPath(`/${workspaceSlug}${path}`);
  }

  /** An absolute public address (canonical links, feeds). */
  url(workspaceSlug: string, path = ''): string {
    return this.links.publicUrl(`/${workspaceSlug}${path}`);
  }

  /** A public address as a path on this host. */
  local(url: string): string {
    return this.links.local(url);
  }

  /** Where to send a visitor back to: a page of this workspace's public site, or else its home. */
  back(workspaceSlug: string, wanted: unknown): string {
    return pathUnder(this.home(workspaceSlug), wanted);
  }

  signIn(workspaceSlug: string, back?: string): string {
    const base = this.of(workspaceSlug, '/sign-in');
    return back && back !== this.home(workspaceSlug) ? `${base}?redirect=${encodeURIComponent(back)}` : base;
  }

  /** What every page of the site shows around its content. `here`: the page's own path and query. */
  frame(site: SiteContext, here: string): SiteFrame {
    const slug = site.workspace.slug;
    return {
      workspace: site.workspace,
      visitor: site.visitor ? { name: site.visitor.name, token: this.tokens.for(site.visitor.token) } : null,
      paths: {
        home: this.home(slug),
        roadmap: this.of(slug, '/roadmap'),
        changelog: this.of(slug, '/changelog'),
        signIn: this.signIn(slug, here),
        signOut: this.of(slug, '/sign-out'),
        assets: this.links.publicPath(''),
      },
      here,
    };
  }
}
