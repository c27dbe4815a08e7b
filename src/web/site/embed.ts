import type { NextFunction, Response } from 'express';
import type { ChorusRequest } from '../../common/request-context';

const EMBED = /^\/embed(\/[^/?]+(?:\/[^?]*)?)(\?.*)?$/;

/**
 * The widget's frame shows a workspace's site pages: `/embed/<workspace>/…` is answered by the
 * site's own routes, guard and services (`/<workspace>/…`), marked as framed (`req.embed`) so
 * that the site's guard takes the embed's cookies and framing policy and its pages take the
 * compact layout and links that stay under /embed. Runs before anything reads the path.
 * `req.originalUrl` keeps the address as the browser asked for it.
 */
export function embedRequests() {
  return (req: ChorusRequest, _res: Response, next: NextFunction): void => {
    const match = EMBED.exec(req.url);
    if (match) {
      req.embed = true;
      req.url = match[1] + (match[2] ?? '');
    }
    next();
  };
}

/**
 * The Content-Security-Policy of a framed page: the pages' own, with `frame-ancestors` exactly
 * the workspace's allowed origins, or 'none' when it has none.
 */
export function embedPolicy(policy: string, origins: string[]): string {
  return policy.replace("frame-ancestors 'none'", `frame-ancestors ${origins.length ? origins.join(' ') : "'none'"}`);
}
