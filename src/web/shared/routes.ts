import { isReservedWorkspaceSlug } from '../../workspaces/reserved-slugs';

const firstSegment = (path: string) => {
  const end = path.indexOf('/', 1);
  return end === -1 ? path.slice(1) : path.slice(1, end);
};

/**
 * Whether a request path is one of the pages that people read: the public site, the
 * dashboard, the email links, robots.txt. They answer HTML (errors included) and carry the
 * pages' headers; everything else (the API, health, metrics, the API's docs) is for machines.
 */
export function isPagePath(path: string): boolean {
  const first = firstSegment(path);
  if (first === 'admin' || first === 'email' || first === 'robots.txt') return true;
  return first !== '' && !isReservedWorkspaceSlug(first) && !first.includes('.');
}
