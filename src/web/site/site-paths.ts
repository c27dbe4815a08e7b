import { Injectable } from '@nestjs/common';
import { Links } from '../../config/links';
import { FormTokens } from '../shared/form-tokens';
import type { SiteContext } from './site-context';
import type { SiteFrame } from './views/frame';

/** Characters that have no place in a path we send a browser to. */
const UNSAFE_IN_PATH = /[\u0000-\u001f\u007f\\]/;

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

  /**
   * Where to send a visitor back to: a path of this workspace's public site, or else its home.
   * Another site (`https://…`), a protocol-relative `//host` or `/\host`, and a path that leaves
   * the workspace once normalised (`/ws/../admin`) all go home.
   */
  back(workspaceSlug: string, wanted: unknown): string {
    const home = this.home(workspaceSlug);
    if (typeof wanted !== 'string' || !wanted.startsWith('/') || wanted.startsWith('//') || UNSAFE_IN_PATH.test(wanted)) return home;
    let url: URL;
    try {
      url = new URL(wanted, 'http://chorus.invalid');
    } catch {
      return home;
    }
    if (url.origin !== 'http://chorus.invalid' || (url.pathname !== home && !url.pathname.startsWith(`${home}/`))) return home;
    return `${url.pathname}${url.search}${url.hash}`;
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
        signIn: this.signIn(slug, here),
        signOut: this.of(slug, '/sign-out'),
        assets: this.links.publicPath(''),
      },
      here,
    };
  }
}
