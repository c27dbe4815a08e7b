import type { PersonEntity } from '../../../workspaces/person.entity';
import { FormAlert, FormState, Select, TextArea, Token } from '../../shared/forms';
import { Fragment, Html, h } from '../../shared/html';
import { Excerpt, shownText } from '../../shared/text';
import { day, minute } from '../../shared/words';
import { Check } from './boards';
import { AdminFrame, adminPage, Notice } from './frame';
import { Table } from './table';

/** One held post or comment in the queue, as the page shows it. */
export interface QueueItemView {
  kind: 'post' | 'comment';
  /** Unique on the page: the item's heading id, which its buttons are described by. */
  key: string;
  /** The post's title (for a comment: the post it is on). */
  title: string;
  /** The post's details, or the comment. */
  text: string;
  author: string;
  board: string;
  createdAt: Date | string;
  /** The post's dashboard page. */
  postUrl: string;
  /** Where its forms post: `…/approve`, `…/reject`, `…/block`. */
  action: string;
}

/** The moderation choices, as the select shows them. */
export const MODERATION_CHOICES = [
  { value: 'off', label: 'Off: publish at once' },
  { value: 'first', label: 'First: hold until one is approved' },
  { value: 'all', label: 'All: hold every one' },
];

/**
 * The moderation page: what waits for review (each with "Approve", "Reject", and "Block" on its
 * author), the settings ("Moderation", "Blocked email domains", "Refuse disposable email
 * addresses", saved by "Save"), and the blocked people with "Unblock". Every action a plain form.
 */
export function moderationPage(
  frame: AdminFrame,
  view: {
    queue: QueueItemView[];
    more: boolean;
    blocked: PersonEntity[];
    form: FormState;
    notice: string | null;
  },
): string {
  const a = frame.paths.admin;
  const token = frame.member!.token;
  return adminPage(
    frame,
    'Moderation',
    'moderation',
    <>
      <h1>Moderation</h1>
      <Notice text={view.notice} />
      <div class="columns">
        <div class="stack">
          <Queue items={view.queue} more={view.more} token={token} />
          <section aria-labelledby="blocked-h">
            <h2 id="blocked-h">Blocked people</h2>
            {view.blocked.length === 0 ? (
              <p class="empty">Nobody is blocked.</p>
            ) : (
              <Table caption="Blocked people" columns={['Name', 'Email', 'Blocked', { hidden: 'Actions' }]}>
                {view.blocked.map((p) => (
                  <tr>
                    <td class="user-text" id={`blocked-${p.id}`}>
                      {shownText(p.name)}
                    </td>
                    <td class="user-text">{p.email ?? ''}</td>
                    <td>{p.blockedAt ? day(p.blockedAt) : ''}</td>
                    <td>
                      <form method="post" action={a(`/admin/moderation/people/${p.id}/unblock`)} class="inline">
                        <Token value={token} />
                        <button type="submit" class="secondary" aria-describedby={`blocked-${p.id}`}>
                          Unblock
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </Table>
            )}
          </section>
        </div>
        <form method="post" action={a('/admin/moderation')} class="card" novalidate aria-labelledby="settings-h">
          <h2 id="settings-h">Settings</h2>
          <Token value={token} />
          <FormAlert form={view.form} />
          <Select
            form_id="settings"
            name="moderation"
            label="Moderation"
            form={view.form}
            options={MODERATION_CHOICES}
            hint="Which of visitors’ posts and comments wait for review. With “First”, once one of a visitor’s is approved the rest show at once. Members’ posts and comments, and those made with an API key, are never held."
          />
          <TextArea
            form_id="settings"
            name="domains"
            label="Blocked email domains"
            form={view.form}
            rows={4}
            hint="One domain a line, such as spam.example: an address there or at any domain under it (mail.spam.example) cannot sign in with an emailed code, and is sent nothing."
          />
          <Check
            form_id="settings"
            name="refuse_disposable"
            label="Refuse disposable email addresses"
            checked={view.form.values.refuse_disposable === 'true'}
            hint="Addresses at throwaway-mail services, from a list kept up to date by others, cannot sign in with an emailed code."
          />
          <button type="submit">Save</button>
        </form>
      </div>
    </>,
  );
}

function Queue({ items, more, token }: { items: QueueItemView[]; more: boolean; token: string }): Html {
  return (
    <section aria-labelledby="queue-h">
      <h2 id="queue-h">Waiting for review</h2>
      {items.length === 0 ? (
        <p class="empty">Nothing is waiting for review.</p>
      ) : (
        <ol class="plain-list stack">
          {items.map((item) => (
            <li class="card">
              <h3 id={item.key} class="user-text">
                {item.kind === 'post' ? 'Post: ' : 'Comment on: '}
                <a href={item.postUrl}>{shownText(item.title)}</a>
              </h3>
              <p class="meta">
                <span id={`${item.key}-by`}>
                  by <bdi class="user-text">{shownText(item.author)}</bdi>
                </span>
                <span>{item.board}</span>
                <time datetime={new Date(item.createdAt).toISOString()}>{minute(item.createdAt)}</time>
              </p>
              <Excerpt text={item.text} max={300} class="excerpt" />
              <div class="toolbar">
                <ItemButton action={`${item.action}/approve`} token={token} label="Approve" describedBy={item.key} />
                <ItemButton action={`${item.action}/reject`} token={token} label="Reject" describedBy={item.key} secondary />
                <ItemButton action={`${item.action}/block`} token={token} label="Block" describedBy={`${item.key}-by`} danger />
              </div>
            </li>
          ))}
        </ol>
      )}
      {more ? <p class="count">More are waiting: approve or reject these to see the next ones.</p> : null}
    </section>
  );
}

function ItemButton(props: { action: string; token: string; label: string; describedBy: string; secondary?: boolean; danger?: boolean }): Html {
  return (
    <form method="post" action={props.action} class="inline">
      <Token value={props.token} />
      <button type="submit" class={props.danger ? 'danger' : props.secondary ? 'secondary' : undefined} aria-describedby={props.describedBy}>
        {props.label}
      </button>
    </form>
  );
}
