import { Token } from '../../shared/forms';
import { Child, Html, documentHtml, h } from '../../shared/html';
import { Layout, PageMeta } from '../../shared/layout';
import type { PublicWorkspace } from '../site-context';

/** What every page of a workspace's site knows about where it is and who is looking. */
export interface SiteFrame {
  workspace: PublicWorkspace;
  /** The signed-in visitor, and the token their forms carry. */
  visitor: { name: string; token: string } | null;
  paths: {
    home: string;
    roadmap: string;
    changelog: string;
    /** Sign-in, coming back to this page afterwards. */
    signIn: string;
    signOut: string;
    /** Where the public site's assets are served. */
    assets: string;
  };
  /** This page's own path (forms come back to it). */
  here: string;
  /** In the widget's frame: the origins allowed to frame it (the compact layout). */
  embed: { origins: string[] } | null;
}

/** A page of a workspace's public site: its header names the workspace, links home, to the roadmap and the changelog, and signs in or out. */
export function sitePage(frame: SiteFrame, meta: Omit<PageMeta, 'siteName'>, current: 'home' | 'roadmap' | 'changelog' | null, body: Child): string {
  const account: Html = frame.visitor ? (
    <span>
      <span class="who">
        Signed in as <bdi class="user-text">{frame.visitor.name}</bdi>
      </span>{' '}
      <form class="inline" method="post" action={frame.paths.signOut}>
        <Token value={frame.visitor.token} />
        <button type="submit" class="link">
          Sign out
        </button>
      </form>
    </span>
  ) : (
    <a href={frame.paths.signIn}>Sign in</a>
  );
  return documentHtml(
    <Layout
      meta={{ ...meta, siteName: frame.workspace.name }}
      chrome={{
        home: frame.paths.home,
        nav: [
          { href: frame.paths.home, label: 'Boards', current: current === 'home' },
          { href: frame.paths.roadmap, label: 'Roadmap', current: current === 'roadmap' },
          { href: frame.paths.changelog, label: 'Changelog', current: current === 'changelog' },
        ],
        account,
        assets: frame.paths.assets,
        embed: frame.embed ?? undefined,
      }}
    >
      {body}
    </Layout>,
  );
}
