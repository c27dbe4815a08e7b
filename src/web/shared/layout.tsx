import { ASSETS } from './assets';
import { Child, Html, h } from './html';

export interface NavLink {
  href: string;
  label: string;
  current?: boolean;
}

export interface PageMeta {
  /** The document's title (the tab, search results). */
  title: string;
  /** One or two sentences: the meta description and og:description. */
  description: string;
  /** The page's absolute address. */
  canonical: string;
  /** og:site_name and the header's name: the workspace, or "Chorus" on the service's own pages. */
  siteName: string;
  /** Sign-in pages and the like: kept out of search engines. */
  noindex?: boolean;
  /** A board's Atom feed, as rel=alternate. */
  feed?: { href: string; title: string };
  prev?: string;
  next?: string;
  ogType?: 'website' | 'article';
}

export interface Chrome {
  /** Where the header's name leads. */
  home: string;
  nav: NavLink[];
  /** The header's account corner: a sign-in link, or who is signed in and the sign-out form. */
  account?: Html;
  /** Where this area's assets are served (the public site's or the dashboard's base path). */
  assets: string;
  /**
   * In the widget's frame: the compact layout (no footer, a smaller header), the frame's script,
   * and the origins whose messages it acts on.
   */
  embed?: { origins: string[] };
}

/** Every page's frame: head with its metadata, a header with the workspace's navigation, one main landmark, a footer. */
export function Layout({ meta, chrome, children }: { meta: PageMeta; chrome: Chrome; children?: Child }): Html {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{meta.title}</title>
        <meta name="description" content={meta.description} />
        {meta.noindex ? <meta name="robots" content="noindex, nofollow" /> : null}
        <link rel="canonical" href={meta.canonical} />
        <meta property="og:title" content={meta.title} />
        <meta property="og:description" content={meta.description} />
        <meta property="og:url" content={meta.canonical} />
        <meta property="og:type" content={meta.ogType ?? 'website'} />
        <meta property="og:site_name" content={meta.siteName} />
        {meta.feed ? <link rel="alternate" type="application/atom+xml" title={meta.feed.title} href={meta.feed.href} /> : null}
        {meta.prev ? <link rel="prev" href={meta.prev} /> : null}
        {meta.next ? <link rel="next" href={meta.next} /> : null}
        <link rel="icon" type="image/svg+xml" href={`${chrome.assets}/assets/${ASSETS.icon.name}`} />
        <link rel="stylesheet" href={`${chrome.assets}/assets/${ASSETS.stylesheet.name}`} />
        {chrome.embed ? <meta name="chorus-frame-origins" content={chrome.embed.origins.join(' ')} /> : null}
        {chrome.embed ? <script src={`${chrome.assets}/assets/${ASSETS.embed.name}`} defer></script> : null}
      </head>
      <body class={chrome.embed ? 'compact' : undefined}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="site-header">
          <div class="wrap">
            <a class="brand user-text" href={chrome.home}>
              {meta.siteName}
            </a>
            <nav aria-label="Site">
              <ul>
                {chrome.nav.map((link) => (
                  <li>
                    <a href={link.href} aria-current={link.current ? 'page' : undefined}>
                      {link.label}
                    </a>
                  </li>
                ))}
                {chrome.account ? <li>{chrome.account}</li> : null}
              </ul>
            </nav>
          </div>
        </header>
        <main id="main" class="wrap">
          {children}
        </main>
        {chrome.embed ? null : (
          <footer class="site-footer">
            <div class="wrap">Feedback by Chorus</div>
          </footer>
        )}
      </body>
    </html>
  );
}
