import { FormState, TextArea, Token } from '../../shared/forms';
import { Fragment, h } from '../../shared/html';
import { AdminFrame, adminPage, Notice } from './frame';

/** The snippet a customer pastes into their app's pages for one board. */
export const widgetSnippet = (script: string, workspace: string, board: string) =>
  `<script src="${script}" data-workspace="${workspace}" data-board="${board}" async></script>`;

/** The widget: allowed origins (one a line) with "Save", and the snippet to copy. */
export function widgetPage(
  frame: AdminFrame,
  view: { form: FormState; notice: string | null; script: string; workspace: string; boards: string[] },
): string {
  const a = frame.paths.admin;
  const board = view.boards[0] ?? '<board slug>';
  return adminPage(
    frame,
    'Widget',
    'widget',
    <>
      <h1>Widget</h1>
      <Notice text={view.notice} />
      <p>
        The widget adds a "Feedback" button to your app's pages that opens a board in a panel. People vote, post and comment there; call{' '}
        <code>window.Chorus.identify(token)</code> with the same token as single sign-on to sign your user in.
      </p>
      <form method="post" action={a('/admin/widget')} class="card" novalidate aria-labelledby="origins-h">
        <h2 id="origins-h">Where it may appear</h2>
        <Token value={frame.member!.token} />
        <TextArea
          form_id="widget"
          name="origins"
          label="Allowed origins"
          form={view.form}
          rows={4}
          hint="One origin a line, such as https://app.example.com (or http://localhost:3000 while developing). Only these sites may show the widget."
        />
        <button type="submit">Save</button>
      </form>
      <section aria-labelledby="snippet-h">
        <h2 id="snippet-h">The snippet</h2>
        <p>Paste it into your app's pages{view.boards.length > 1 ? `; data-board is one of: ${view.boards.join(', ')}` : ''}.</p>
        <pre>
          <code>{widgetSnippet(view.script, view.workspace, board)}</code>
        </pre>
      </section>
    </>,
  );
}
