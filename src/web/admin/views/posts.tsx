import type { BoardEntity } from '../../../boards/board.entity';
import type { CommentResponse } from '../../../comments/comment.mapper';
import { POST_STATUSES, PostStatus } from '../../../posts/post.entity';
import type { PostResponse, SimilarPostResponse, VoterResponse } from '../../../posts/post.mapper';
import type { PostEventDeliveries } from '../../../webhooks/deliveries.service';
import { CommentList } from '../../shared/comments';
import { SearchAndStatus } from '../../shared/filters';
import { FormAlert, FormState, Select, TextArea, TextField, Token } from '../../shared/forms';
import { Pager } from '../../shared/pager';
import { Fragment, h, LEFT_ARROW } from '../../shared/html';
import { FormattedText, shownText } from '../../shared/text';
import { CATEGORY_WORDS, day, minute, plural, STATUS_WORDS } from '../../shared/words';
import { StatusBadge } from '../../site/views/posts';
import type { ChangelogEntryResponse } from '../../../changelog/changelog.mapper';
import { LinkingEntries } from './changelog';
import { AdminFrame, adminPage, Notice } from './frame';
import { Table } from './table';

export interface PostsQuery {
  board?: string;
  status?: PostStatus;
  q?: string;
  sort: 'new' | 'top';
  includeMerged: boolean;
  offset: number;
}

/** Every post of every board, private ones included, with the API list's filters and search. */
export function adminPostsPage(
  frame: AdminFrame,
  view: { boards: BoardEntity[]; query: PostsQuery; posts: PostResponse[]; prev: string | null; next: string | null; notice: string | null },
): string {
  const a = frame.paths.admin;
  const { query } = view;
  const boardName = new Map(view.boards.map((b) => [b.slug, b]));
  return adminPage(
    frame,
    'Posts',
    'posts',
    <>
      <h1>Posts</h1>
      <Notice text={view.notice} />
      <form class="filters card" method="get" action={a('/admin')} role="search">
        <SearchAndStatus id="f" q={query.q} status={query.status} />
        <div class="field">
          <label for="f-board">Board</label>
          <select id="f-board" name="board">
            <option value="" selected={!query.board}>
              Every board
            </option>
            {view.boards.map((b) => (
              <option value={b.slug} selected={query.board === b.slug}>
                {shownText(b.name)}
                {b.public ? '' : ' (private)'}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-sort">Sort</label>
          <select id="f-sort" name="sort">
            <option value="new" selected={query.sort === 'new'}>
              Newest
            </option>
            <option value="top" selected={query.sort === 'top'}>
              Most votes
            </option>
          </select>
        </div>
        <div class="field check">
          <input type="checkbox" id="f-merged" name="include_merged" value="true" checked={query.includeMerged} />
          <label for="f-merged">Show merged posts</label>
        </div>
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      {view.posts.length > 0 ? (
        <Table caption="Posts" columns={['Votes', 'Post', 'Board', 'Status', 'Comments', 'Created']}>
          {view.posts.map((post) => (
            <tr>
              <td>{post.votes}</td>
              <td class="user-text">
                <a href={a(`/admin/p/${post.id}`)}>{shownText(post.title)}</a>
                {post.merged_into ? <span class="count"> (merged into #{post.merged_into.id})</span> : null}
              </td>
              <td class="user-text">
                {shownText(post.board.name)}
                {boardName.get(post.board.slug)?.public === false ? <span class="count"> (private)</span> : null}
              </td>
              <td>
                <StatusBadge status={post.status} />
              </td>
              <td>{post.comments}</td>
              <td>
                <time datetime={post.created_at.slice(0, 10)}>{day(post.created_at)}</time>
              </td>
            </tr>
          ))}
        </Table>
      ) : (
        <p class="empty">No posts match.</p>
      )}
      <Pager prev={view.prev} next={view.next} />
    </>,
  );
}

export interface AdminPostView {
  post: PostResponse;
  board: BoardEntity;
  comments: CommentResponse[];
  voters: VoterResponse[];
  votersMore: boolean;
  events: PostEventDeliveries[];
  /** The changelog entries linking the post. */
  entries: ChangelogEntryResponse[];
  forms: { status: FormState; reply: FormState; merge: FormState };
  /** Posts of the board with a title like this one's: merge targets to suggest. */
  similar: SimilarPostResponse[];
  notice: string | null;
}

/**
 * Beside "Merge into": the board's posts most like this one, each with a button that asks to
 * merge into it (the confirmation page follows, as for a typed id).
 */
function MergeSuggestions({ view, action, token }: { view: AdminPostView; action: string; token: string }) {
  if (view.similar.length === 0) return null;
  return (
    <section class="card" aria-labelledby="similar-h">
      <h2 id="similar-h">Similar posts</h2>
      <p class="count">Merge into one of these? You confirm on the next page.</p>
      <ul class="plain-list stack">
        {view.similar.map((s) => (
          <li>
            <form method="post" action={action} class="inline">
              <Token value={token} />
              <input type="hidden" name="into" value={String(s.id)} />
              <button type="submit" class="link" aria-label={`Merge into #${s.id} “${shownText(s.title)}”`}>
                #{s.id} <span class="user-text">{shownText(s.title)}</span>
              </button>
            </form>{' '}
            <span class="count">
              {plural(s.votes, 'vote')}, {Math.round(s.similarity * 100)}% alike
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

const DELIVERY_WORDS: Record<string, string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed', cancelled: 'Cancelled' };

/** The post at its `admin_url`: change its status, reply, merge it; its voters, comments, and what each of its events became at each endpoint. */
export function adminPostPage(frame: AdminFrame, view: AdminPostView): string {
  const a = frame.paths.admin;
  const { post, board } = view;
  const token = frame.member!.token;
  return adminPage(
    frame,
    shownText(post.title),
    'posts',
    <>
      <p>
        <a href={a('/admin')}>{LEFT_ARROW} All posts</a>
      </p>
      <Notice text={view.notice} />
      <article class="card stack">
        <h1 class="user-text">{shownText(post.title)}</h1>
        <p class="meta">
          <StatusBadge status={post.status} />
          <span class="user-text">
            {shownText(board.name)}
            {board.public ? '' : ' (private)'}
          </span>
          <span>{CATEGORY_WORDS[post.category]}</span>
          <span>
            by <bdi>{shownText(post.author.name)}</bdi>
          </span>
          <time datetime={post.created_at.slice(0, 10)}>{day(post.created_at)}</time>
          <span>{plural(post.votes, 'vote')}</span>
          <span>#{post.id}</span>
        </p>
        {post.merged_into ? (
          <p>
            Merged into <a href={a(`/admin/p/${post.merged_into.id}`)}>#{post.merged_into.id} {shownText(post.merged_into.title)}</a>.
          </p>
        ) : null}
        {post.body ? <FormattedText text={post.body} /> : <p class="count">No details.</p>}
        {board.public && !post.merged_into ? (
          <p>
            <a href={post.url}>See it on the public site</a>
          </p>
        ) : null}
      </article>
      <div class="columns">
        <div class="stack">
          <section aria-labelledby="comments-h" class="stack">
            <h2 id="comments-h">{plural(view.comments.length, 'comment')}</h2>
            <CommentList comments={view.comments} />
            <form method="post" action={a(`/admin/p/${post.id}/reply`)} class="card" novalidate>
              <Token value={token} />
              <FormAlert form={view.forms.reply} />
              <TextArea form_id="reply" name="body" label="Reply" form={view.forms.reply} rows={4} hint="An official reply, shown as the team's. Up to 2,000 characters." />
              <button type="submit">Post reply</button>
            </form>
          </section>
          <LinkingEntries entries={view.entries} admin={a} />
          <section aria-labelledby="events-h" class="stack">
            <h2 id="events-h">Deliveries</h2>
            {view.events.length === 0 ? <p class="count">This post caused no events yet.</p> : null}
            {view.events.map(({ event, deliveries }) => (
              <div class="card">
                <h3>
                  <code>{event.type}</code> <span class="count">{minute(event.created_at)}</span>
                </h3>
                {deliveries.length === 0 ? (
                  <p class="count">No endpoint was subscribed to it.</p>
                ) : (
                  <ul class="plain-list">
                    {deliveries.map((d) => (
                      <li>
                        <a href={a(`/admin/developers/endpoints/${d.endpoint.id}/deliveries`)} class="user-text">
                          {d.endpoint.kind}: {d.endpoint.urlShown}
                        </a>{' '}
                        <strong>{DELIVERY_WORDS[d.status]}</strong>
                        {d.reason ? ` (${d.reason.replace(/_/g, ' ')})` : ''}, {plural(d.attempt_count, 'attempt')}
                        {d.next_attempt_at ? `, next ${minute(d.next_attempt_at)}` : ''}
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            ))}
          </section>
        </div>
        <aside class="stack" aria-label="Change this post">
          <form method="post" action={a(`/admin/p/${post.id}/status`)} class="card" novalidate>
            <Token value={token} />
            <FormAlert form={view.forms.status} />
            <Select form_id="status" name="status" label="Status" form={view.forms.status} options={POST_STATUSES.map((s) => ({ value: s, label: STATUS_WORDS[s] }))} />
            <button type="submit">Change status</button>
          </form>
          {post.merged_into ? null : (
            <form method="post" action={a(`/admin/p/${post.id}/merge`)} class="card" novalidate>
              <Token value={token} />
              <FormAlert form={view.forms.merge} />
              <TextField form_id="merge" name="into" label="Merge into" form={view.forms.merge} inputmode="numeric" hint="The id of the post this one duplicates. You confirm on the next page." />
              <button type="submit" class="secondary">
                Merge
              </button>
            </form>
          )}
          {post.merged_into ? null : <MergeSuggestions view={view} action={a(`/admin/p/${post.id}/merge`)} token={token} />}
          <section class="card" aria-labelledby="voters-h">
            <h2 id="voters-h">Voters</h2>
            {view.voters.length > 0 ? (
              <ul class="plain-list">
                {view.voters.map((v) => (
                  <li class="user-text">{shownText(v.name)}</li>
                ))}
              </ul>
            ) : (
              <p class="count">No voters.</p>
            )}
            {view.votersMore ? <p class="count">And more.</p> : null}
          </section>
        </aside>
      </div>
    </>,
  );
}

/** Before what cannot be undone: what will happen, and the button that does it. */
export function confirmPage(
  frame: AdminFrame,
  view: { title: string; explanation: string; action: string; fields: Record<string, string>; button: string; cancel: string; danger?: boolean },
): string {
  return adminPage(
    frame,
    view.title,
    null,
    <div class="narrow">
      <h1 class="user-text">{view.title}</h1>
      <p class="user-text">{view.explanation}</p>
      <form method="post" action={view.action} class="card">
        <Token value={frame.member!.token} />
        {Object.entries(view.fields).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <input type="hidden" name="confirm" value="yes" />
        <p>
          <button type="submit" class={view.danger ? 'danger' : undefined}>
            {view.button}
          </button>{' '}
          <a href={view.cancel}>Cancel</a>
        </p>
      </form>
    </div>,
  );
}
