import type { PostResponse } from '../../../posts/post.mapper';
import type { PostStatus } from '../../../posts/post.entity';
import { Fragment, h } from '../../shared/html';
import { shownText } from '../../shared/text';
import { plural, STATUS_WORDS } from '../../shared/words';
import { SiteFrame, sitePage } from './frame';

export interface RoadmapView {
  columns: { status: PostStatus; posts: { post: PostResponse; href: string }[] }[];
  canonical: string;
}

/** Posts of the public boards in three columns, "Planned", "In progress" and "Done", the most voted first. */
export function roadmapPage(frame: SiteFrame, view: RoadmapView): string {
  const name = shownText(frame.workspace.name);
  return sitePage(
    frame,
    { title: `Roadmap · ${name}`, description: `What ${name} has planned, is building and has done, from its users' feedback.`, canonical: view.canonical },
    'roadmap',
    <>
      <h1>Roadmap</h1>
      <p class="lead">What is planned, in progress and done, most voted first.</p>
      <div class="roadmap">
        {view.columns.map((column) => (
          <section aria-labelledby={`col-${column.status}`}>
            <h2 id={`col-${column.status}`}>{STATUS_WORDS[column.status]}</h2>
            {column.posts.length > 0 ? (
              <ol>
                {column.posts.map(({ post, href }) => (
                  <li>
                    <span class="n" title={plural(post.votes, 'vote')}>
                      {post.votes}
                      <span class="visually-hidden"> {post.votes === 1 ? 'vote' : 'votes'}</span>
                    </span>
                    <span class="user-text">
                      <a href={href}>{shownText(post.title)}</a>
                      <span class="count"> · {shownText(post.board.name)}</span>
                    </span>
                  </li>
                ))}
              </ol>
            ) : (
              <p class="count">Nothing here yet.</p>
            )}
          </section>
        ))}
      </div>
    </>,
  );
}
