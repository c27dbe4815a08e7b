import type { PostResponse } from '../../../posts/post.mapper';
import { Token } from '../../shared/forms';
import { Fragment, Html, h } from '../../shared/html';
import { Excerpt, shownText } from '../../shared/text';
import { CATEGORY_WORDS, day, plural, STATUS_WORDS } from '../../shared/words';
import type { SiteFrame } from './frame';

/** A post as the site links to it: its path on this host. */
export interface ListedPost {
  post: PostResponse;
  href: string;
  voted: boolean;
}

/**
 * The vote button: for someone signed in a form that adds their vote ("Vote for …") or takes
 * it back ("Remove vote for …"); for anyone else a link to sign in first, named "Vote" too.
 */
export function VoteButton({ frame, listed, back }: { frame: SiteFrame; listed: ListedPost; back: string }): Html {
  const { post, voted } = listed;
  const count = (
    <>
      <strong>{post.votes}</strong> <span>{post.votes === 1 ? 'vote' : 'votes'}</span>
    </>
  );
  const title = shownText(post.title);
  if (!frame.visitor) {
    return (
      <a class="vote votes" href={frame.paths.signIn} aria-label={`Vote for "${title}": ${plural(post.votes, 'vote')}`}>
        {count}
      </a>
    );
  }
  return (
    <form method="post" action={`${listed.href}/vote`} class="votes">
      <Token value={frame.visitor.token} />
      <input type="hidden" name="intent" value={voted ? 'remove' : 'add'} />
      <input type="hidden" name="back" value={back} />
      <button
        type="submit"
        class="vote"
        data-voted={voted ? 'true' : 'false'}
        aria-label={`${voted ? 'Remove vote for' : 'Vote for'} "${title}": ${plural(post.votes, 'vote')}`}
      >
        {count}
      </button>
    </form>
  );
}

export function StatusBadge({ status }: { status: PostResponse['status'] }): Html {
  return <span class={`status status-${status}`}>{STATUS_WORDS[status]}</span>;
}

/** Status, category, author, date and comments of a post, on one line. */
export function PostMeta({ post }: { post: PostResponse }): Html {
  return (
    <p class="meta">
      <StatusBadge status={post.status} />
      <span>{CATEGORY_WORDS[post.category]}</span>
      <span>
        by <bdi>{shownText(post.author.name)}</bdi>
      </span>
      <time datetime={post.created_at.slice(0, 10)}>{day(post.created_at)}</time>
      <span>{plural(post.comments, 'comment')}</span>
    </p>
  );
}

/** One post in a board's list. */
export function PostItem({ frame, listed, back }: { frame: SiteFrame; listed: ListedPost; back: string }): Html {
  const { post } = listed;
  return (
    <li class="post">
      <VoteButton frame={frame} listed={listed} back={back} />
      <div class="post-main">
        <h2>
          <a href={listed.href}>{shownText(post.title)}</a>
        </h2>
        <Excerpt text={post.body} max={140} class="excerpt" />
        <PostMeta post={post} />
      </div>
    </li>
  );
}
