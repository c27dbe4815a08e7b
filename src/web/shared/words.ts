import type { PostCategory, PostStatus } from '../../posts/post.entity';

export const STATUS_WORDS: Record<PostStatus, string> = {
  open: 'Open',
  planned: 'Planned',
  in_progress: 'In progress',
  done: 'Done',
  closed: 'Closed',
};

export const CATEGORY_WORDS: Record<PostCategory, string> = {
  feature: 'Feature',
  bug: 'Bug',
  improvement: 'Improvement',
};

const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const MINUTE = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
});

/** A date as pages show it: absolute ("24 Nov 2026"), so that a page does not change by itself as time passes. */
export const day = (iso: string | Date) => DAY.format(typeof iso === 'string' ? new Date(iso) : iso);
/** A moment to the minute, in UTC (the dashboard's delivery attempts). */
export const minute = (iso: string | Date) => MINUTE.format(typeof iso === 'string' ? new Date(iso) : iso);

export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
