import { Token } from '../../shared/forms';
import { Child, Fragment, Html, documentHtml, h } from '../../shared/html';
import { Layout } from '../../shared/layout';
import { shownText } from '../../shared/text';

export type Section = 'posts' | 'changelog' | 'boards' | 'developers' | 'members' | 'moderation' | 'widget' | null;

/** What every dashboard page knows: whose workspace, who is signed in, where things are. */
export interface AdminFrame {
  workspace: { slug: string; name: string; plan: string } | null;
  member: { name: string; token: string } | null;
  paths: {
    /** A dashboard path (`/admin…`) as the browser sees it. */
    admin: (path: string) => string;
    assets: string;
  };
  /** The page's own address, absolute (its canonical link). */
  canonical: string;
}

/** A dashboard page: noindex, the workspace's sections in the header, and who is signed in. */
export function adminPage(frame: AdminFrame, title: string, section: Section, body: Child): string {
  const a = frame.paths.admin;
  const account: Html | undefined = frame.member ? (
    <span>
      <span class="who">
        <bdi class="user-text">{shownText(frame.member.name)}</bdi>
      </span>{' '}
      <form class="inline" method="post" action={a('/admin/sign-out')}>
        <Token value={frame.member.token} />
        <button type="submit" class="link">
          Sign out
        </button>
      </form>
    </span>
  ) : undefined;
  const nav = frame.member
    ? [
        { href: a('/admin'), label: 'Posts', current: section === 'posts' },
        { href: a('/admin/changelog'), label: 'Changelog', current: section === 'changelog' },
        { href: a('/admin/boards'), label: 'Boards', current: section === 'boards' },
        { href: a('/admin/developers'), label: 'Developers', current: section === 'developers' },
        { href: a('/admin/members'), label: 'Members', current: section === 'members' },
        { href: a('/admin/moderation'), label: 'Moderation', current: section === 'moderation' },
        { href: a('/admin/widget'), label: 'Widget', current: section === 'widget' },
      ]
    : [];
  const name = frame.workspace ? `${shownText(frame.workspace.name)} · Chorus` : 'Chorus';
  return documentHtml(
    <Layout
      meta={{ title: `${title} · ${name}`, description: `${title}: the Chorus dashboard.`, canonical: frame.canonical, siteName: name, noindex: true }}
      chrome={{ home: a('/admin'), nav, account, assets: frame.paths.assets }}
    >
      {body}
    </Layout>,
  );
}

/** A notice above a page's content: what was just done. */
export function Notice({ text }: { text: string | null }): Html {
  return text ? (
    <p class="alert alert-ok" role="status">
      {text}
    </p>
  ) : (
    <></>
  );
}

/** A secret shown once, on the page that made it, with what to do with it. */
export function SecretOnce({ label, secret, children }: { label: string; secret: string; children?: Child }): Html {
  return (
    <section class="card stack" aria-labelledby="secret-once">
      <h2 id="secret-once">{label}</h2>
      <p>
        <strong>Copy it now: it is shown only on this page, never again.</strong>
      </p>
      <code class="secret">{secret}</code>
      {children}
    </section>
  );
}
