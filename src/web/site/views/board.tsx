import type { BoardEntity } from '../../../boards/board.entity';
import { POST_CATEGORIES } from '../../../posts/post.entity';
import { SearchAndStatus } from '../../shared/filters';
import { FormAlert, FormState, Select, TextArea, TextField, Token } from '../../shared/forms';
import { Pager } from '../../shared/pager';
import { Fragment, h } from '../../shared/html';
import { excerptText, shownText } from '../../shared/text';
import { CATEGORY_WORDS } from '../../shared/words';
import type { BoardQuery } from '../site.service';
import { SiteFrame, sitePage } from './frame';
import { ListedPost, PostItem } from './posts';

export interface BoardView {
  board: BoardEntity;
  query: BoardQuery;
  posts: ListedPost[];
  /** Addresses of this board: with other query values (`link`), of its feed, canonical. */
  link: (change: Partial<BoardQuery>) => string;
  feed: string;
  canonical: string;
  prev: string | null;
  next: string | null;
  /** The new-post form as typed (after a refusal), and where it posts. */
  form: FormState;
  postAction: string;
}

const SORTS = [
  { value: 'new', label: 'Newest' },
  { value: 'top', label: 'Most votes' },
] as const;

function NewPostForm({ frame, view }: { frame: SiteFrame; view: BoardView }) {
  if (!frame.visitor) {
    return (
      <section class="card" aria-labelledby="new-post">
        <h2 id="new-post">Suggest something</h2>
        <p>Sign in to post an idea or report a bug, and to vote.</p>
        <a class="button" href={frame.paths.signIn}>
          Sign in to post
        </a>
      </section>
    );
  }
  return (
    <section class="card" aria-labelledby="new-post">
      <h2 id="new-post">Suggest something</h2>
      <form method="post" action={view.postAction} novalidate>
        <Token value={frame.visitor.token} />
        <FormAlert form={view.form} />
        <TextField form_id="post" name="title" label="Title" form={view.form} required maxlength={120} hint="4 to 120 characters." />
        <TextArea form_id="post" name="body" label="Details" form={view.form} rows={5} hint="Optional, up to 5,000 characters." />
        <Select
          form_id="post"
          name="category"
          label="Category"
          form={view.form}
          options={POST_CATEGORIES.map((c) => ({ value: c, label: CATEGORY_WORDS[c] }))}
        />
        <button type="submit">Submit post</button>
      </form>
    </section>
  );
}

/** A board: its posts with the API list's sort, status, search and paging, and the new-post form. */
export function boardPage(frame: SiteFrame, view: BoardView): string {
  const { board, query } = view;
  const name = shownText(board.name);
  const searching = Boolean(query.q) || Boolean(query.status);
  return sitePage(
    frame,
    {
      title: `${name} · ${shownText(frame.workspace.name)}`,
      description: board.description ? excerptText(board.description, 200) : `Ideas and feedback for ${shownText(frame.workspace.name)}: vote, post and follow what gets built.`,
      canonical: view.canonical,
      feed: { href: view.feed, title: `${name}: newest posts` },
      prev: view.prev ?? undefined,
      next: view.next ?? undefined,
    },
    null,
    <>
      <h1 class="user-text">
        {name}
      </h1>
      {board.description ? (
        <p class="lead user-text">
          {shownText(board.description)}
        </p>
      ) : null}
      <div class="columns">
        <div>
          <div class="toolbar">
            <nav aria-label="Sort">
              <ul class="tabs">
                {SORTS.map((sort) => (
                  <li>
                    <a href={view.link({ sort: sort.value, offset: 0 })} aria-current={query.sort === sort.value ? 'page' : undefined}>
                      {sort.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
            <form class="filters" method="get" action={view.link({ q: undefined, status: undefined, offset: 0, sort: 'new' })} role="search">
              {query.sort !== 'new' ? <input type="hidden" name="sort" value={query.sort} /> : null}
              <SearchAndStatus id="search" q={query.q} status={query.status} />
              <button type="submit" class="secondary">
                Filter
              </button>
            </form>
          </div>
          {view.posts.length > 0 ? (
            <ol class="posts" aria-label="Posts">
              {view.posts.map((listed) => (
                <PostItem frame={frame} listed={listed} back={frame.here} />
              ))}
            </ol>
          ) : (
            <p class="empty">{searching ? 'No posts match.' : query.offset > 0 ? 'No more posts.' : 'No posts yet. Be the first to suggest something.'}</p>
          )}
          <Pager prev={view.prev} next={view.next} />
        </div>
        <aside aria-label="New post">
          <NewPostForm frame={frame} view={view} />
        </aside>
      </div>
    </>,
  );
}
