import type { BoardEntity } from '../../../boards/board.entity';
import { Fragment, h } from '../../shared/html';
import { Excerpt, shownText } from '../../shared/text';
import { plural } from '../../shared/words';
import { SiteFrame, sitePage } from './frame';

export interface HomeView {
  boards: { board: BoardEntity & { posts: number }; href: string }[];
  canonical: string;
}

/** The workspace's public boards, each with its description and number of posts, and the way to the roadmap. */
export function homePage(frame: SiteFrame, view: HomeView): string {
  const name = shownText(frame.workspace.name);
  return sitePage(
    frame,
    { title: `${name} feedback`, description: `Share ideas and report bugs to ${name}, vote on what matters to you, and follow the roadmap.`, canonical: view.canonical },
    'home',
    <>
      <h1 class="user-text">
        {name} feedback
      </h1>
      <p class="lead">
        Share an idea, vote for what matters to you, and see what is coming on the <a href={frame.paths.roadmap}>roadmap</a>.
      </p>
      {view.boards.length > 0 ? (
        <ul class="board-list">
          {view.boards.map(({ board, href }) => (
            <li class="card">
              <h2 class="user-text">
                <a href={href}>{shownText(board.name)}</a>
              </h2>
              {board.description ? <Excerpt text={board.description} max={240} class="user-text" /> : null}
              <p class="count">{plural(board.posts, 'post')}</p>
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">There are no public boards here yet.</p>
      )}
    </>,
  );
}
