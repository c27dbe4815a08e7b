import type { PersonEntity } from '../../../workspaces/person.entity';
import { FormAlert, FormState, TextField, Token } from '../../shared/forms';
import { Fragment, h } from '../../shared/html';
import { shownText } from '../../shared/text';
import { day } from '../../shared/words';
import { AdminFrame, adminPage, Notice } from './frame';
import { Table } from './table';

/** The workspace's members: who they are, adding one, removing one (never the last). */
export function membersPage(frame: AdminFrame, view: { members: PersonEntity[]; me: string; form: FormState; notice: string | null }): string {
  const a = frame.paths.admin;
  const token = frame.member!.token;
  const last = view.members.length === 1;
  return adminPage(
    frame,
    'Members',
    'members',
    <>
      <h1>Members</h1>
      <Notice text={view.notice} />
      <div class="columns">
        <Table caption="Members" columns={['Name', 'Email', 'Since', { hidden: 'Actions' }]}>
          {view.members.map((m) => (
            <tr>
              <td class="user-text">
                {shownText(m.name)}
                {m.id === view.me ? <span class="count"> (you)</span> : null}
              </td>
              <td class="user-text">{m.email ?? ''}</td>
              <td>{day(m.createdAt)}</td>
              <td>
                {last ? (
                  <span class="count">The last member</span>
                ) : (
                  <form method="post" action={a(`/admin/members/${m.id}/remove`)} class="inline">
                    <Token value={token} />
                    <button type="submit" class="secondary" aria-label={`Remove ${m.name}`}>
                      Remove
                    </button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </Table>
        <form method="post" action={a('/admin/members')} class="card" novalidate aria-labelledby="add-h">
          <h2 id="add-h">Add a member</h2>
          <Token value={token} />
          <FormAlert form={view.form} />
          <TextField form_id="member" name="email" type="email" label="Email" form={view.form} required autocomplete="off" />
          <TextField form_id="member" name="name" label="Name" form={view.form} required maxlength={100} autocomplete="off" />
          <button type="submit">Add member</button>
          <p class="hint">They sign in at the dashboard with a code sent to that address.</p>
        </form>
      </div>
    </>,
  );
}
