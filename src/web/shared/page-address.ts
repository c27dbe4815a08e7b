import { SetMetadata } from '@nestjs/common';

export const PAGE_QUERY = 'chorus:page-query';

/**
 * The query parameters a page uses (a board's `sort`, `status`, `q`, `offset`); a page without
 * this uses none. Only these are part of its address as the page shows it (the way back after
 * signing in) and as the page cache keys it: `?utm_source=…` is the same page, one cache entry,
 * one ETag.
 */
export const PageQuery = (...names: string[]) => SetMetadata(PAGE_QUERY, names);

/**
 * A page's own address: the request's path and, of its query, only the parameters the page uses,
 * in the order given (`?q=x&sort=top` and `?sort=top&q=x` are one address), each value encoded
 * one way.
 */
export function pageAddress(originalUrl: string, used: readonly string[] = []): string {
  const mark = originalUrl.indexOf('?');
  if (mark === -1) return originalUrl;
  const given = new URLSearchParams(originalUrl.slice(mark + 1));
  const kept = new URLSearchParams();
  for (const name of used) for (const value of given.getAll(name)) kept.append(name, value);
  const search = kept.toString();
  return search ? `${originalUrl.slice(0, mark)}?${search}` : originalUrl.slice(0, mark);
}

/** A page's `offset` from its query: a whole number of up to nine digits, else 0 (the first page). */
export function pageOffset(text: unknown): number {
  return typeof text === 'string' && /^\d{1,9}$/.test(text) ? Number(text) : 0;
}
