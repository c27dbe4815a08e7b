import type { NextFunction, Request, Response } from 'express';
import type { Links } from '../../config/links';
import { PAGE_HEADERS } from './page-requests';
import { isPagePath } from './routes';

/** A year: browsers then reach the host over https only, for a year after any answer. */
export const HSTS = 'max-age=31536000';

/**
 * The API's browsable page (Swagger UI, same origin as the dashboard) gets the pages' headers,
 * with a CSP that lets it run: its own script files (never inline script), its styles (Swagger UI
 * sets style attributes as it draws), its images (some are data: URIs), and requests to this
 * origin ("Try it out"). No framing, no sniffing, referrers cut to the origin.
 */
export const DOCS_HEADERS: Record<string, string> = {
  ...PAGE_HEADERS,
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

const isDocsPath = (path: string) => path === '/docs' || path.startsWith('/docs/');

/** Whether a path is the public site's (a workspace's pages, robots.txt, the assets), as opposed to the dashboard's host. */
const onPublicSite = (path: string) =>
  path === '/robots.txt' || path.startsWith('/assets/') || (isPagePath(path) && !(path === '/admin' || path.startsWith('/admin/') || path.startsWith('/email/')));

/**
 * Headers the whole service sends, whichever route answers: `Strict-Transport-Security` on every
 * answer of a host served over https (PUBLIC_BASE_URL for the public site, BASE_URL for the
 * rest: they are what the proxy in front serves, whatever the connection to this process is),
 * and /docs' security headers (the pages' own are set by pageRequests).
 */
export function securityHeaders(links: Links) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (onPublicSite(req.path) ? links.siteIsHttps : links.dashboardIsHttps) res.setHeader('Strict-Transport-Security', HSTS);
    if (isDocsPath(req.path)) for (const name in DOCS_HEADERS) res.setHeader(name, DOCS_HEADERS[name]);
    next();
  };
}
