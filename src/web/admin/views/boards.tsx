import type { BoardEntity } from '../../../boards/board.entity';
import { FormAlert, FormState, TextArea, TextField, Token } from '../../shared/forms';
import { Fragment, Html, h } from '../../shared/html';
import { shownText } from '../../shared/text';
import { AdminFrame, adminPage, Notice } from './frame';
import { Table } from './table';

/** A checkbox and its label (a box left unticked is not sent: the handler reads it as false). */
export function Check({ form_id, name, label, checked, hint }: { form_id: string; name: string; label: string; checked: boolean; hint?: string }): Html {
  const id = `${form_id}-${name}`;
  return (
    <div class="field check">
      <input type="checkbox" id={id} name={name} value="true" checked={checked} aria-describedby={hint ? `${id}-hint` : undefined} />
      <label for={id}>{label}</label>
      {hint ? (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
    </div>
  );
}

function BoardFields({ form_id, form }: { form_id: string; form: FormState }): Html {
  return (
    <>
      <TextField form_id={form_id} name="name" label="Name" form={form} required maxlength={100} />
      <TextField form_id={form_id} name="slug" label="Slug" form={form} required maxlength={63} hint="Lower-case letters, digits and dashes: the board's address and the API's board parameter." />
      <TextArea form_id={form_id} name="description" label="Description" form={form} rows={3} hint="Optional, up to 1,000 characters." />
      <Check form_id={form_id} name="private" label="Private" checked={form.values.private === 'true'} hint="Only members see a private board; it is absent from the public site." />
      <Check form_id={form_id} name="notify_voters" label="Email voters when a post's status changes" checked={form.values.notify_voters === 'true'} />
    </>
  );
}

export function boardsPage(frame: AdminFrame, view: { boards: (BoardEntity & { url: string })[]; form: FormState; notice: string | null }): string {
  const a = frame.paths.admin;
  return adminPage(
    frame,
    'Boards',
    'boards',
    <>
      <h1>Boards</h1>
      <Notice text={view.notice} />
      <div class="columns">
        <div>
          {view.boards.length > 0 ? (
            <Table caption="Boards" columns={['Board', 'Slug', 'Seen by', 'Voter email']}>
              {view.boards.map((b) => (
                <tr>
                  <td class="user-text">
                    <a href={a(`/admin/boards/${b.slug}`)}>{shownText(b.name)}</a>
                  </td>
                  <td>
                    <code>{b.slug}</code>
                  </td>
                  <td>{b.public ? <a href={b.url}>Everyone</a> : 'Members only'}</td>
                  <td>{b.notifyVoters ? 'On' : 'Off'}</td>
                </tr>
              ))}
            </Table>
          ) : (
            <p class="empty">No boards yet.</p>
          )}
        </div>
        <form method="post" action={a('/admin/boards')} class="card" novalidate aria-labelledby="new-board">
          <h2 id="new-board">New board</h2>
          <Token value={frame.member!.token} />
          <FormAlert form={view.form} />
          <BoardFields form_id="new" form={view.form} />
          <button type="submit">Create board</button>
        </form>
      </div>
    </>,
  );
}

export function boardPage(frame: AdminFrame, view: { board: BoardEntity; form: FormState; notice: string | null }): string {
  const a = frame.paths.admin;
  return adminPage(
    frame,
    `Board ${shownText(view.board.name)}`,
    'boards',
    <div class="narrow">
      <p>
        <a href={a('/admin/boards')}>All boards</a>
      </p>
      <h1 class="user-text">{shownText(view.board.name)}</h1>
      <Notice text={view.notice} />
      <form method="post" action={a(`/admin/boards/${view.board.slug}`)} class="card" novalidate>
        <Token value={frame.member!.token} />
        <FormAlert form={view.form} />
        <BoardFields form_id="edit" form={view.form} />
        <button type="submit">Save board</button>
      </form>
    </div>,
  );
}
