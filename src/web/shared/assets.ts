import { createHash } from 'node:crypto';
import { EMBED_SCRIPT } from '../widget/embed-frame';
import { STYLESHEET } from './stylesheet';

/** The mark in the header and the tab: a speech bubble. */
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#3646c8"/>' +
  '<path d="M9 10.5h14a2 2 0 0 1 2 2v7a2 2 0 0 1-2 2h-7l-5 4v-4H9a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2z" fill="#fff"/></svg>';

interface Asset {
  name: string;
  type: string;
  body: Buffer;
}

function asset(base: string, extension: string, type: string, text: string): Asset {
  const body = Buffer.from(text.trim(), 'utf8');
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name: `${base}.${hash}.${extension}`, type, body };
}

/**
 * What the pages load from this service (and nothing from anywhere else): each named by its
 * content's hash, so that it can be cached for a year and a new version gets a new name.
 */
export const ASSETS = {
  stylesheet: asset('chorus', 'css', 'text/css; charset=utf-8', STYLESHEET),
  icon: asset('icon', 'svg', 'image/svg+xml', ICON),
  /** The widget's frame's script (/embed pages). */
  embed: asset('embed', 'js', 'text/javascript; charset=utf-8', EMBED_SCRIPT),
};

export const ASSET_BY_NAME = new Map(Object.values(ASSETS).map((a) => [a.name, a]));
