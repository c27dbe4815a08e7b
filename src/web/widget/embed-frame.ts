import type { Evt, Win } from './dom';

/** A message between the widget (the customer's page) and its frame (an /embed page). */
export type WidgetMessage = { type: 'chorus:ready' } | { type: 'chorus:close' } | { type: 'chorus:identify'; token: string };

/**
 * The script of every /embed page (served as a hashed asset: its text is this function as the
 * build compiled it, so it must use nothing from outside itself). In a frame, it acts on
 * messages from its parent window only, and only when the parent's origin is one the workspace
 * allows (the page's `chorus-frame-origins`): `chorus:identify` signs the person in through the
 * site's SSO address (the same verification as `/<workspace>/sso`, and back to this page). It
 * tells the parent when it is ready (for a token waiting) and when Escape is pressed (to close
 * the panel). A top-level /embed page does nothing.
 */
export function embedFrame(win: Win): void {
  const doc = win.document;
  const parent = win.parent;
  if (parent === win) return;
  const meta = doc.querySelector('meta[name="chorus-frame-origins"]');
  const origins = (meta?.getAttribute('content') ?? '').split(' ').filter((o) => o !== '');
  const tell = (message: WidgetMessage) => {
    for (const origin of origins) parent.postMessage(message, origin);
  };
  const home = win.location.pathname.replace(/^(.*?\/embed\/[^/]+).*$/, '$1');
  win.addEventListener('message', (event: Evt) => {
    if (event.source !== parent || !origins.includes(event.origin ?? '')) return;
    const data = event.data as Partial<{ type: string; token: unknown }> | null;
    if (!data || typeof data !== 'object' || data.type !== 'chorus:identify' || typeof data.token !== 'string') return;
    const back = win.location.pathname + win.location.search;
    win.location.replace(`${home}/sso?token=${encodeURIComponent(data.token)}&redirect=${encodeURIComponent(back)}`);
  });
  doc.addEventListener('keydown', (event: Evt) => {
    if (event.key === 'Escape') tell({ type: 'chorus:close' });
  });
  tell({ type: 'chorus:ready' });
}

/** The asset's text. */
export const EMBED_SCRIPT = `(${embedFrame.toString()})(window);`;
