import { Html, h } from './html';

/** Links to the pages before and after this one (`rel=prev`/`next`), when there are any. */
export function Pager({ prev, next, labels = ['Previous page', 'Next page'] }: { prev: string | null; next: string | null; labels?: [string, string] }): Html | null {
  if (!prev && !next) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {prev ? (
        <a href={prev} rel="prev">
          {labels[0]}
        </a>
      ) : (
        <span />
      )}
      {next ? (
        <a href={next} rel="next">
          {labels[1]}
        </a>
      ) : null}
    </nav>
  );
}
