import { ENTRY_TYPES, TYPE_WORDS } from '../../../changelog/changelog-entry';
import type { ChangelogEntryResponse } from '../../../changelog/changelog.mapper';
import { FormAlert, FormState, Select, TextArea, TextField, Token } from '../../shared/forms';
import { Fragment, Html, h, LEFT_ARROW } from '../../shared/html';
import { shownText } from '../../shared/text';
import { minute } from '../../shared/words';
import { AdminFrame, adminPage, Notice } from './frame';
import { Table } from './table';

const STATE_WORDS = { draft: 'Draft', scheduled: 'Scheduled', published: 'Published' } as const;

/** An entry's state in words: when scheduled or published, with the time (UTC). */
export function EntryState({ entry }: { entry: Pick<ChangelogEntryResponse, 'state' | 'publish_at' | 'published_at'> }): Html {
  const at = entry.state === 'scheduled' ? entry.publish_at : entry.state === 'published' ? entry.published_at : null;
  return (
    <span>
      <strong>{STATE_WORDS[entry.state]}</strong>
      {at ? (
        <>
          {' '}
          <time datetime={at}>{minute(at)}</time>
        </>
      ) : null}
    </span>
  );
}

/** The fields of an entry; "Publish at" is a date and time in UTC. */
function EntryFields({ form_id, form, published }: { form_id: string; form: FormState; published: boolean }): Html {
  return (
    <>
      <TextField form_id={form_id} name="title" label="Title" form={form} required maxlength={120} hint="4 to 120 characters." />
      <TextArea form_id={form_id} name="body" label="Details" form={form} rows={8} hint="Markdown: headings, lists, emphasis, code, links. Up to 20,000 characters." />
      <Select form_id={form_id} name="type" label="Type" form={form} options={ENTRY_TYPES.map((t) => ({ value: t, label: TYPE_WORDS[t] }))} />
      <TextField form_id={form_id} name="post_ids" label="Linked posts" form={form} hint="Post ids, comma-separated (e.g. 12, 40). Their voters are emailed when the entry is published." />
      {published ? null : (
        <div class="field">
          <label for={`${form_id}-publish_at`}>Publish at</label>
          <input
            type="datetime-local"
            id={`${form_id}-publish_at`}
            name="publish_at"
            value={form.values.publish_at ?? ''}
            aria-describedby={form.errors.publish_at ? `${form_id}-publish_at-hint ${form_id}-publish_at-error` : `${form_id}-publish_at-hint`}
            aria-invalid={form.errors.publish_at ? 'true' : undefined}
          />
          <span class="hint" id={`${form_id}-publish_at-hint`}>
            A date and time in UTC (YYYY-MM-DDTHH:MM), used by "Schedule".
          </span>
          {form.errors.publish_at ? (
            <span class="error" id={`${form_id}-publish_at-error`}>
              Publish at {form.errors.publish_at}
            </span>
          ) : null}
        </div>
      )}
    </>
  );
}

/** The buttons of an entry's form: what it becomes. */
function EntryButtons({ published, scheduled }: { published: boolean; scheduled: boolean }): Html {
  if (published) {
    return (
      <p class="actions">
        <button type="submit" name="action" value="save">
          Save changes
        </button>
      </p>
    );
  }
  return (
    <p class="actions">
      <button type="submit" name="action" value="draft" class="secondary">
        Save draft
      </button>{' '}
      <button type="submit" name="action" value="schedule" class="secondary">
        Schedule
      </button>{' '}
      <button type="submit" name="action" value="publish">
        Publish now
      </button>
      {scheduled ? <span class="hint"> "Save draft" takes a scheduled entry off the schedule.</span> : null}
    </p>
  );
}

export function adminChangelogPage(frame: AdminFrame, view: { entries: ChangelogEntryResponse[]; form: FormState; notice: string | null }): string {
  const a = frame.paths.admin;
  return adminPage(
    frame,
    'Changelog',
    'changelog',
    <>
      <h1>Changelog</h1>
      <Notice text={view.notice} />
      <div class="columns">
        <div>
          {view.entries.length > 0 ? (
            <Table caption="Changelog entries" columns={['Entry', 'Type', 'State', 'Linked posts']}>
              {view.entries.map((entry) => (
                <tr>
                  <td class="user-text">
                    <a href={a(`/admin/changelog/${entry.id}`)}>{shownText(entry.title)}</a>
                  </td>
                  <td>{TYPE_WORDS[entry.type]}</td>
                  <td>
                    <EntryState entry={entry} />
                  </td>
                  <td>{entry.posts.length}</td>
                </tr>
              ))}
            </Table>
          ) : (
            <p class="empty">No entries yet.</p>
          )}
        </div>
        <form method="post" action={a('/admin/changelog')} class="card" novalidate aria-labelledby="new-entry">
          <h2 id="new-entry">New entry</h2>
          <Token value={frame.member!.token} />
          <FormAlert form={view.form} />
          <EntryFields form_id="new" form={view.form} published={false} />
          <EntryButtons published={false} scheduled={false} />
        </form>
      </div>
    </>,
  );
}

export function adminEntryPage(frame: AdminFrame, view: { entry: ChangelogEntryResponse; form: FormState; notice: string | null }): string {
  const a = frame.paths.admin;
  const { entry } = view;
  const published = entry.state === 'published';
  return adminPage(
    frame,
    shownText(entry.title),
    'changelog',
    <>
      <p>
        <a href={a('/admin/changelog')}>{LEFT_ARROW} Changelog</a>
      </p>
      <Notice text={view.notice} />
      <h1 class="user-text">{shownText(entry.title)}</h1>
      <p class="meta">
        <EntryState entry={entry} /> <span>{TYPE_WORDS[entry.type]}</span> <span>#{entry.id}</span>
        {published ? (
          <>
            {' '}
            <a href={entry.url}>See it on the public site</a>
          </>
        ) : null}
      </p>
      {entry.posts.length > 0 ? (
        <section aria-labelledby="linked-h">
          <h2 id="linked-h">Linked posts</h2>
          <ul class="plain-list">
            {entry.posts.map((post) => (
              <li class="user-text">
                <a href={a(`/admin/p/${post.id}`)}>
                  #{post.id} {shownText(post.title)}
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <form method="post" action={a(`/admin/changelog/${entry.id}`)} class="card" novalidate aria-labelledby="edit-entry">
        <h2 id="edit-entry">Edit entry</h2>
        <Token value={frame.member!.token} />
        <FormAlert form={view.form} />
        {published ? <p class="hint">Published entries can be edited; editing emails nobody again.</p> : null}
        <EntryFields form_id="edit" form={view.form} published={published} />
        <EntryButtons published={published} scheduled={entry.state === 'scheduled'} />
      </form>
    </>,
  );
}

/** On a post's dashboard page: the entries linking it. */
export function LinkingEntries({ entries, admin }: { entries: ChangelogEntryResponse[]; admin: (path: string) => string }): Html {
  return (
    <section aria-labelledby="changelog-h" class="stack">
      <h2 id="changelog-h">Changelog</h2>
      {entries.length === 0 ? (
        <p class="count">No changelog entry links this post.</p>
      ) : (
        <ul class="plain-list">
          {entries.map((entry) => (
            <li class="user-text">
              <a href={admin(`/admin/changelog/${entry.id}`)}>{shownText(entry.title)}</a> <EntryState entry={entry} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
