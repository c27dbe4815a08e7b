import { Injectable } from '@nestjs/common';
import { Links } from '../../config/links';
import { FormTokens } from '../shared/form-tokens';
import { pathUnder } from '../shared/redirects';
import type { SiteContext } from './site-context';
import type { SiteFrame } from './views/frame';

/** What a path depends on: the workspace, and whether the page is in the widget's frame. */
type Where = Pick<SiteContext, 'workspace' | 'embed'>;

/** Where the public site's pages are, as the browser sees them (with PUBLIC_BASE_URL's prefix). */
@Injectable()
export class SitePaths {
  constructor(
    private readonly links: Links,
    private readonly tokens: FormTokens,
  ) {}

  /** Where the site's pages are for this request: `/<workspace>`, or `/embed/<workspace>` in the widget's frame. */
  private root(site: Where): string {
    return `${site.embed ? '/embed' : ''}/${site.workspace.slug}`;
  }

  home(site: Where): string {
    return this.links.publicPath(this.root(site));
  }

  of(site: Where, path: string): string {
    return this.links.publicPath(`${this.root(site)}${path}`);
  }

  /** The path a request asked for (after site/embed.ts), as the browser sees it. */
  requested(site: Where, path: string): string {
    return this.links.publicPath(`${site.embed ? '/embed' : ''}${path}`);
  }

  /** An absolute public address (canonical links, feeds). */
  url(workspaceSlug: string, path = ''): string {
    return this.links.publicUrl(`/${workspaceSlug}${path}`);
  }

  /** A public address as a path on this host (in the widget's frame, the same page under /embed). */
  local(site: Where, url: string): string {
    const path = this.links.local(url);
    const prefix = this.links.publicPath('');
    if (!site.embed || !path.startsWith(`${prefix}/${site.workspace.slug}`)) return path;
    return `${prefix}/embed${path.slice(prefix.length)}`;
  }

  /** Where to send a visitor back to: a page of this workspace's public site (in the frame: under /embed), or else its home. */
  back(site: Where, wanted: unknown): string {
    return pathUnder(this.home(site), wanted);
  }

  signIn(site: Where, back?: string): string {
    const base = this.of(site, '/sign-in');
    return back && back !== this.home(site) ? `${base}?redirect=${encodeURIComponent(back)}` : base;
  }

  /** What every page of the site shows around its content. `here`: the page's own path and query. */
  frame(site: SiteContext, here: string): SiteFrame {
    return {
      workspace: site.workspace,
      visitor: site.visitor ? { name: site.visitor.name, token: this.tokens.for(site.visitor.token) } : null,
      paths: {
        home: this.home(site),
        roadmap: this.of(site, '/roadmap'),
        changelog: this.of(site, '/changelog'),
        signIn: this.signIn(site, here),
        signOut: this.of(site, '/sign-out'),
        assets: this.links.publicPath(''),
      },
      here,
      embed: site.embed ? { origins: site.frameOrigins } : null,
    };
  }
}
