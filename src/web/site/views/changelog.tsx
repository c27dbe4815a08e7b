import { TYPE_WORDS } from '../../../changelog/changelog-entry';
import type { ChangelogEntryResponse } from '../../../changelog/changelog.mapper';
import { Token } from '../../shared/forms';
import { Fragment, h, Html, LEFT_ARROW } from '../../shared/html';
import { markdownHtml } from '../../shared/markdown';
import { Pager } from '../../shared/pager';
import { shownText } from '../../shared/text';
import { day } from '../../shared/words';
import { SiteFrame, sitePage } from './frame';

/** An entry as a page shows it: where it is, and its linked posts (public ones only) with theirs. */
export interface ShownEntry {
  entry: ChangelogEntryResponse;
  href: string;
  posts: { title: string; href: string }[];
}

export interface ChangelogView {
  entries: ShownEntry[];
  /** The workspace's public site, absolute: links under it are its own (no `rel`). */
  own: string;
  canonical: string;
  feed: string;
  prev: string | null;
  next: string | null;
  /** For a signed-in visitor: subscribed or not, and where the form goes. */
  subscription: { subscribed: boolean; action: string } | null;
}

/** The type's pill takes the colours of a status (checked for contrast in light and dark). */
const TYPE_PILLS: Record<ChangelogEntryResponse['type'], string> = { new: 'status-planned', improved: 'status-in_progress', fixed: 'status-done' };

function EntryFacts({ entry }: { entry: ChangelogEntryResponse }): Html {
  return (
    <p class="meta">
      <span class={`status ${TYPE_PILLS[entry.type]}`}>{TYPE_WORDS[entry.type]}</span>{' '}
      <time datetime={entry.published_at!}>{day(entry.published_at!)}</time>
    </p>
  );
}

function LinkedPosts({ posts }: { posts: ShownEntry['posts'] }): Html | null {
  if (posts.length === 0) return null;
  return (
    <div class="linked">
      <p>Asked for in:</p>
      <ul>
        {posts.map((post) => (
          <li class="user-text">
            <a href={post.href}>{shownText(post.title)}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** `/<ws>/changelog`: published entries, newest first, ten a page; "Subscribe to updates" for a signed-in visitor. */
export function changelogPage(frame: SiteFrame, view: ChangelogView): string {
  const name = shownText(frame.workspace.name);
  return sitePage(
    frame,
    {
      title: `Changelog · ${name}`,
      description: `What ${name} shipped, and the feedback that asked for it.`,
      canonical: view.canonical,
      feed: { href: view.feed, title: `${name}: changelog` },
    },
    'changelog',
    <>
      <h1>Changelog</h1>
      <p class="lead">
        What shipped, newest first. <a href={view.feed}>Atom feed</a>
      </p>
      {view.subscription && frame.visitor ? (
        <form method="post" action={view.subscription.action} class="inline">
          <Token value={frame.visitor.token} />
          <input type="hidden" name="intent" value={view.subscription.subscribed ? 'remove' : 'add'} />
          <button type="submit">{view.subscription.subscribed ? 'Unsubscribe from updates' : 'Subscribe to updates'}</button>
        </form>
      ) : null}
      {view.entries.length === 0 ? <p>Nothing published yet.</p> : null}
      <div class="stack">
      {view.entries.map(({ entry, href, posts }) => (
        <article class="card changelog-entry" aria-labelledby={`entry-${entry.id}`}>
          <h2 id={`entry-${entry.id}`} class="user-text">
            <a href={href}>{shownText(entry.title)}</a>
          </h2>
          <EntryFacts entry={entry} />
          {entry.body ? markdownHtml(entry.body, { own: view.own, headingShift: 2 }) : null}
          <LinkedPosts posts={posts} />
        </article>
      ))}
      </div>
      <Pager prev={view.prev} next={view.next} />
    </>,
  );
}

export interface EntryView {
  shown: ShownEntry;
  own: string;
  back: string;
}

/** An entry's page: its title, type, date, body and the public posts it answers. */
export function entryPage(frame: SiteFrame, view: EntryView): string {
  const { entry, posts } = view.shown;
  const title = shownText(entry.title);
  return sitePage(
    frame,
    {
      title: `${title} · Changelog · ${shownText(frame.workspace.name)}`,
      description: `${TYPE_WORDS[entry.type]}: ${title}`,
      canonical: entry.url,
      ogType: 'article',
    },
    'changelog',
    <>
      <p>
        <a href={view.back}>{LEFT_ARROW} Changelog</a>
      </p>
      <article class="card changelog-entry">
        <h1 class="user-text">{title}</h1>
        <EntryFacts entry={entry} />
        {entry.body ? markdownHtml(entry.body, { own: view.own, headingShift: 1 }) : null}
        <LinkedPosts posts={posts} />
      </article>
    </>,
  );
}

/** "Shipped in" on a post's page: the published entries linking it. */
export function ShippedIn({ entries }: { entries: { title: string; href: string }[] }): Html | null {
  if (entries.length === 0) return null;
  return (
    <p class="shipped-in user-text">
      Shipped in{' '}
      {entries.map((entry, i) => [i > 0 ? ', ' : null, <a href={entry.href}>{shownText(entry.title)}</a>])}
    </p>
  );
}
