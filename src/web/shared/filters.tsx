import { POST_STATUSES, PostStatus } from '../../posts/post.entity';
import { Fragment, Html, h } from './html';
import { STATUS_WORDS } from './words';

/** The list filters' search field ("Search") and status choice ("Status", any by default). */
export function SearchAndStatus({ id, q, status }: { id: string; q?: string; status?: PostStatus }): Html {
  return (
    <>
      <div class="field">
        <label for={`${id}-q`}>Search</label>
        <input type="search" id={`${id}-q`} name="q" value={q ?? ''} maxlength={200} />
      </div>
      <div class="field">
        <label for={`${id}-status`}>Status</label>
        <select id={`${id}-status`} name="status">
          <option value="" selected={!status}>
            Any status
          </option>
          {POST_STATUSES.map((s) => (
            <option value={s} selected={status === s}>
              {STATUS_WORDS[s]}
            </option>
          ))}
        </select>
      </div>
    </>
  );
}
