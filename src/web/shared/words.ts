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

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
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
export function day(iso: string | Date): string {
  if (typeof iso !== 'string') return `${iso.getUTCDate()} ${MONTHS[iso.getUTCMonth()]} ${iso.getUTCFullYear()}`;
  // The API's timestamps: YYYY-MM-DDTHH:MM:SS.mmmZ, read as they are written.
  return `${Number(iso.slice(8, 10))} ${MONTHS[Number(iso.slice(5, 7)) - 1]} ${iso.slice(0, 4)}`;
}
/** A moment to the minute, in UTC (the dashboard's delivery attempts). */
export const minute = (iso: string | Date) => MINUTE.format(typeof iso === 'string' ? new Date(iso) : iso);

/** `1 vote`, `2 votes`, `12,345 votes`. */
export const plural = (n: number, one: string, many = `${one}s`) => `${n < 1000 ? n : n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
