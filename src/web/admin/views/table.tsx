import { Child, Html, h } from '../../shared/html';

/** A column's header; `{ hidden }` names a column (of buttons, say) for screen readers only. */
export type Column = string | { hidden: string };

/**
 * A table of the dashboard: scrolls sideways on a narrow screen rather than the page, with a
 * caption for screen readers and a header cell for each column; the rows are its children.
 */
export function Table({ caption, columns, children }: { caption: Child; columns: Column[]; children?: Child }): Html {
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col">{typeof column === 'string' ? column : <span class="visually-hidden">{column.hidden}</span>}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
