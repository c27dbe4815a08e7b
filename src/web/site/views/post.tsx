import type { BoardEntity } from '../../../boards/board.entity';
import type { CommentResponse } from '../../../comments/comment.mapper';
import { CommentList } from '../../shared/comments';
import { FormAlert, FormState, TextArea, Token } from '../../shared/forms';
import { Fragment, h, LEFT_ARROW } from '../../shared/html';
import { excerptText, FormattedText, shownText } from '../../shared/text';
import { plural } from '../../shared/words';
import { ShippedIn } from './changelog';
import { SiteFrame, sitePage } from './frame';
import { ListedPost, PostMeta, VoteButton } from './posts';

export interface PostView {
  board: BoardEntity;
  boardHref: string;
  listed: ListedPost;
  comments: CommentResponse[];
  canonical: string;
  form: FormState;
  commentAction: string;
  /** The published changelog entries linking the post. */
  shippedIn: { title: string; href: string }[];
}

/** A post: its votes, its text, its comments oldest first (team replies marked "Official"), the comment form. */
export function postPage(frame: SiteFrame, view: PostView): string {
  const { post } = view.listed;
  const title = shownText(post.title);
  return sitePage(
    frame,
    {
      title: `${title} · ${shownText(view.board.name)} · ${shownText(frame.workspace.name)}`,
      description: excerptText(post.body, 200) || `${title}: a post on ${shownText(view.board.name)}.`,
      canonical: view.canonical,
      ogType: 'article',
    },
    null,
    <>
      <p class="user-text">
        <a href={view.boardHref}>{LEFT_ARROW} {shownText(view.board.name)}</a>
      </p>
      <article class="card post-page">
        <div class="post-head">
          <VoteButton frame={frame} listed={view.listed} back={frame.here} />
          <div class="post-main">
            <h1 class="user-text">
              {title}
            </h1>
            {post.moderation !== 'approved' ? (
              <p class="awaiting" role="status">
                Awaiting review
              </p>
            ) : null}
            <PostMeta post={post} />
            <ShippedIn entries={view.shippedIn} />
          </div>
        </div>
        {post.body ? <FormattedText text={post.body} /> : null}
      </article>
      <section aria-labelledby="comments" class="stack">
        <h2 id="comments">{plural(view.comments.length, 'comment')}</h2>
        <CommentList comments={view.comments} />
        {frame.visitor ? (
          <form method="post" action={view.commentAction} class="card" novalidate>
            <Token value={frame.visitor.token} />
            <FormAlert form={view.form} />
            <TextArea form_id="comment" name="body" label="Comment" form={view.form} rows={4} hint="Up to 2,000 characters." />
            <button type="submit">Add comment</button>
          </form>
        ) : (
          <p>
            <a href={frame.paths.signIn}>Sign in to comment</a>
          </p>
        )}
      </section>
    </>,
  );
}
