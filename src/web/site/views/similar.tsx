import type { BoardEntity } from '../../../boards/board.entity';
import { Token } from '../../shared/forms';
import { Fragment, h, LEFT_ARROW } from '../../shared/html';
import { shownText } from '../../shared/text';
import { SiteFrame, sitePage } from './frame';
import { ListedPost, PostItem } from './posts';

export interface SimilarView {
  board: BoardEntity;
  boardHref: string;
  /** The board's absolute address (this page has none of its own). */
  canonical: string;
  /** The posts like the title typed, best first. */
  posts: ListedPost[];
  /** What was typed, as it was typed: posted again by "Post anyway". */
  typed: { title: string; body: string; category: string };
  postAction: string;
}

/**
 * Before a new post whose title is like others of its board: those posts, each with its vote
 * button (voting for one is often what the visitor wanted), and "Post anyway", which posts what
 * was typed (carried in hidden fields, with the form's token).
 */
export function similarPage(frame: SiteFrame, view: SimilarView): string {
  const boardName = shownText(view.board.name);
  return sitePage(
    frame,
    { title: `Similar posts · ${boardName} · ${shownText(frame.workspace.name)}`, description: `Posts like yours on ${boardName}.`, canonical: view.canonical, noindex: true },
    null,
    <>
      <p class="user-text">
        <a href={view.boardHref}>{LEFT_ARROW} {boardName}</a>
      </p>
      <h1>Similar posts</h1>
      <p class="lead">
        Your post “<bdi class="user-text">{shownText(view.typed.title)}</bdi>” looks like {view.posts.length === 1 ? 'this post' : 'these posts'}. Vote for
        one instead, or post yours anyway.
      </p>
      <ol class="posts" aria-label="Similar posts">
        {view.posts.map((listed) => (
          <PostItem frame={frame} listed={listed} back={view.boardHref} />
        ))}
      </ol>
      <form method="post" action={view.postAction} class="card">
        <Token value={frame.visitor!.token} />
        <input type="hidden" name="title" value={view.typed.title} />
        <input type="hidden" name="body" value={view.typed.body} />
        <input type="hidden" name="category" value={view.typed.category} />
        <input type="hidden" name="similar" value="seen" />
        <p>
          <button type="submit">Post anyway</button> <a href={view.boardHref}>Cancel</a>
        </p>
      </form>
    </>,
  );
}
