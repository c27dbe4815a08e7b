import type { El, Evt, Win } from './dom';
import type { WidgetMessage } from './embed-frame';

/**
 * `/widget.js`, the script a customer's page includes:
 * `<script src="…/widget.js" data-workspace="<slug>" data-board="<board>" async></script>`.
 * It adds a button "Feedback" (in an open shadow root, so that the page's styles and ours leave
 * each other alone) that opens a panel, a dialog with "Close" and a frame of
 * `/embed/<workspace>/<board>`. The dialog pattern: focus moves into the frame on opening and
 * stays in the panel (Tab past either end comes back), Escape (in the page or in the frame,
 * which says so by a message) and "Close" close it, and focus returns to "Feedback".
 * `window.Chorus.identify(token)` hands the workspace's SSO token to the frame, which signs the
 * person in: at once when the panel is open and its page ready, else when it next is. The frame
 * loads and navigates only while the panel is shown: in Chromium 156 a cross-site frame that
 * loaded and signed in while its panel was hidden (`display: none`) was blank once shown, its
 * page and stylesheet loaded and nothing laid out (2 in 10 runs of widget-browser's identify()
 * before opening).
 * The served text is this function as the build compiled it: it reaches nothing outside itself.
 */
export function chorusWidget(win: Win, script: El | null): void {
  const doc = win.document;
  if (!script || win.Chorus) return;
  const workspace = script.dataset.workspace ?? '';
  const board = script.dataset.board ?? '';
  const origin = new URL(script.src).origin;
  const base = script.src.replace(/\/widget\.js(\?.*)?$/, '');
  const address = `${base}/embed/${encodeURIComponent(workspace)}${board ? `/${encodeURIComponent(board)}` : ''}`;

  const host = doc.createElement('div');
  host.setAttribute('data-chorus-widget', '');
  const root = host.attachShadow({ mode: 'open' });
  const style = doc.createElement('style');
  style.textContent = [
    ':host{all:initial}',
    '.open{position:fixed;right:1rem;bottom:1rem;z-index:2147483000;font:600 1rem system-ui,sans-serif;padding:.6rem 1rem;border:0;border-radius:.5rem;background:#3646c8;color:#fff;cursor:pointer}',
    '.open:focus-visible,.close:focus-visible{outline:3px solid #f5b700;outline-offset:2px}',
    '.panel{position:fixed;right:1rem;bottom:1rem;z-index:2147483001;width:min(28rem,calc(100vw - 2rem));height:min(40rem,calc(100vh - 2rem));display:flex;flex-direction:column;background:#fff;border:1px solid #99a;border-radius:.75rem;box-shadow:0 .5rem 2rem rgba(0,0,0,.3);overflow:hidden}',
    '.panel[hidden]{display:none}',
    '.bar{display:flex;justify-content:space-between;align-items:center;padding:.25rem .5rem;font:600 .9375rem system-ui,sans-serif;background:#eef;color:#112}',
    '.close{font:inherit;padding:.3rem .75rem;border:1px solid #667;border-radius:.375rem;background:#fff;color:#112;cursor:pointer}',
    'iframe{flex:1;border:0;width:100%}',
    '.edge{position:absolute;width:1px;height:1px;overflow:hidden}',
  ].join('');
  root.appendChild(style);

  const open = doc.createElement('button');
  open.type = 'button';
  open.className = 'open';
  open.textContent = 'Feedback';
  open.setAttribute('aria-haspopup', 'dialog');
  root.appendChild(open);

  const panel = doc.createElement('div');
  panel.className = 'panel';
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-modal', 'true');
  panel.setAttribute('aria-labelledby', 'chorus-title');
  panel.hidden = true;
  const first = doc.createElement('span');
  first.className = 'edge';
  first.tabIndex = 0;
  const bar = doc.createElement('div');
  bar.className = 'bar';
  const title = doc.createElement('span');
  title.id = 'chorus-title';
  title.textContent = 'Feedback';
  const close = doc.createElement('button');
  close.type = 'button';
  close.className = 'close';
  close.textContent = 'Close';
  bar.appendChild(title);
  bar.appendChild(close);
  const frame = doc.createElement('iframe');
  frame.title = 'Feedback board';
  const last = doc.createElement('span');
  last.className = 'edge';
  last.tabIndex = 0;
  panel.appendChild(first);
  panel.appendChild(bar);
  panel.appendChild(frame);
  panel.appendChild(last);
  root.appendChild(panel);

  let ready = false;
  let pending: string | null = null;
  const send = () => {
    if (!ready || pending === null || panel.hidden || !frame.contentWindow) return;
    const message: WidgetMessage = { type: 'chorus:identify', token: pending };
    pending = null;
    ready = false;
    frame.contentWindow.postMessage(message, origin);
  };
  const show = () => {
    if (!panel.hidden) return;
    if (!frame.src) frame.src = address;
    panel.hidden = false;
    open.setAttribute('aria-expanded', 'true');
    frame.focus();
    send();
  };
  const hide = () => {
    if (panel.hidden) return;
    panel.hidden = true;
    open.setAttribute('aria-expanded', 'false');
    open.focus();
  };
  open.addEventListener('click', show);
  close.addEventListener('click', hide);
  // Tab past the frame's end, or Shift+Tab before "Close": back inside the panel.
  first.addEventListener('focus', () => frame.focus());
  last.addEventListener('focus', () => close.focus());
  panel.addEventListener('keydown', (event: Evt) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      hide();
    }
  });
  win.addEventListener('message', (event: Evt) => {
    if (event.origin !== origin || event.source !== frame.contentWindow) return;
    const data = event.data as Partial<WidgetMessage> | null;
    if (!data || typeof data !== 'object') return;
    if (data.type === 'chorus:close') hide();
    if (data.type === 'chorus:ready') {
      ready = true;
      send();
    }
  });
  win.Chorus = {
    identify(token: string) {
      if (typeof token !== 'string' || token === '') return;
      pending = token;
      // Now if the panel is open and its page ready; else once it is.
      send();
    },
    open: show,
    close: hide,
  };
  (doc.body ?? doc.head).appendChild(host);
}

/** `/widget.js`'s text. */
export const WIDGET_SCRIPT = `(${chorusWidget.toString()})(window, document.currentScript);\n`;
