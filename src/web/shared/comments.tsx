import type { CommentResponse } from '../../comments/comment.mapper';
import { Html, h } from './html';
import { FormattedText, shownText } from './text';
import { day } from './words';

/** A post's comments, oldest first, team replies marked "Official" (the public site and the dashboard). */
export function CommentList({ comments }: { comments: CommentResponse[] }): Html | null {
  if (comments.length === 0) return null;
  return (
    <ol class="comments">
      {comments.map((comment) => (
        <li class={comment.official ? 'comment is-official' : 'comment'} id={`comment-${comment.id}`}>
          <header>
            <bdi class="who">{shownText(comment.author.name)}</bdi>
            {comment.official ? <span class="official">Official</span> : null}
            {comment.moderation !== 'approved' ? <span class="awaiting">Awaiting review</span> : null}
            <time datetime={comment.created_at.slice(0, 10)}>{day(comment.created_at)}</time>
          </header>
          <FormattedText text={comment.body} />
        </li>
      ))}
    </ol>
  );
}
