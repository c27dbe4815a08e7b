import type { NextFunction, Response } from 'express';
import express from 'express';
import type { Links } from '../../config/links';
import { MAX_BODY_BYTES } from '../../common/http-middleware';
import type { ChorusRequest } from '../../common/request-context';
import { PageError } from './page-error';
import { isPagePath } from './routes';

/**
 * The headers of every page: a Content-Security-Policy that lets the page load only this
 * service's own scripts, styles, images and forms (and no framing), no MIME sniffing, and
 * referrers cut to the origin when leaving.
 */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
};

export function setPageHeaders(res: Response): void {
  for (const name in PAGE_HEADERS) res.setHeader(name, PAGE_HEADERS[name]);
}

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';
const parseForm = express.urlencoded({ extended: false, limit: MAX_BODY_BYTES, parameterLimit: 100, type: () => true });

/**
 * Whether a request that changes something came from another site. Browsers say where a form
 * was posted from (`Origin`, and `Sec-Fetch-Site`); a request that says neither (curl, a mail
 * provider's one-click unsubscribe) is judged by its form token alone.
 */
function fromAnotherSite(req: ChorusRequest, origin: string): boolean {
  const from = req.headers.origin;
  if (from !== undefined) return from !== origin;
  const site = req.headers['sec-fetch-site'];
  return site !== undefined && site !== 'same-origin' && site !== 'none';
}

/**
 * What every page request passes before routing: the pages' headers; and for a form post, the
 * same-site check and the form's fields (urlencoded only). A refusal is kept on the request and
 * raised by the guards after routing (as the API's body errors are), so that it is answered
 * with an error page. The email links' one-click unsubscribe (RFC 8058) is posted by mail
 * providers from anywhere, and needs no same-site check.
 */
export function pageRequests(links: Links) {
  return (req: ChorusRequest, res: Response, next: NextFunction): void => {
    if (!isPagePath(req.path)) return next();
    setPageHeaders(res);
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    req.body = {};
    const email = req.path.startsWith('/email/');
    const origin = req.path === '/admin' || req.path.startsWith('/admin/') ? links.dashboardOrigin : links.siteOrigin;
    if (!email && fromAnotherSite(req, origin)) {
      req.bodyError = PageError.forbidden('This form was sent from another site. Nothing was changed.');
      req.resume();
      return next();
    }
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (mediaType !== FORM_MEDIA_TYPE) {
      if (!email) req.bodyError = PageError.badRequest('That did not work', 'Forms are sent as application/x-www-form-urlencoded.');
      req.resume();
      return next();
    }
    parseForm(req, res, (error?: { type?: string }) => {
      if (error) {
        req.body = {};
        req.bodyError =
          error.type === 'entity.too.large'
            ? new PageError(413, 'That was too long', `A form may hold at most ${MAX_BODY_BYTES / 1024} KiB.`)
            : PageError.badRequest('That did not work', 'The form could not be read.');
      }
      next();
    });
  };
}
