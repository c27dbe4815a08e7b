import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import { Child, Html, h } from './html';
import { shownText } from './text';

/**
 * CommonMark (markdown-it) with raw HTML off: `<script>` or `<img onerror>` in a body is text.
 * No typographer, no linkify: what is written is what is shown.
 */
const parser = new MarkdownIt('commonmark', { html: false, linkify: false, typographer: false });

/** The elements Markdown's tokens open, by token type (a heading's level is in its tag). */
const BLOCKS: Record<string, string> = {
  paragraph_open: 'p',
  bullet_list_open: 'ul',
  ordered_list_open: 'ol',
  list_item_open: 'li',
  blockquote_open: 'blockquote',
  em_open: 'em',
  strong_open: 'strong',
  link_open: 'a',
};
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

const shifted = (tag: string, by: number) => `h${Math.min(6, Number(tag.slice(1)) + by)}`;

/** How a Markdown body's links are written: those under `own` (the workspace's public site) get no `rel`. */
export interface MarkdownLinks {
  own: string;
  /** Levels a heading goes down (under a page's own headings): `# A` with 1 is an h2. */
  headingShift?: number;
}

/**
 * A link's target as written in the page, or null when it is not one to follow: only http(s)
 * and mailto addresses (relative ones resolved under the workspace's site). markdown-it already
 * refuses `javascript:`, `vbscript:`, `file:` and `data:`; this refuses every other scheme too.
 */
function target(href: string, links: MarkdownLinks): { href: string; own: boolean } | null {
  let url: URL;
  try {
    url = new URL(href, `${links.own}/`);
  } catch {
    return null;
  }
  if (url.protocol === 'mailto:') return { href: url.href, own: false };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const own = url.href === links.own || url.href.startsWith(`${links.own}/`) || url.href.startsWith(`${links.own}?`) || url.href.startsWith(`${links.own}#`);
  return { href: url.href, own };
}

/**
 * Renders markdown-it's tokens as Html built by `h`: every text goes through its escaping,
 * every element and attribute is one we chose.
 */
function render(tokens: Token[], links: MarkdownLinks): Child[] {
  const out: Child[] = [];
  const stack: { tag: string; attrs: Record<string, string> | null; children: Child[] }[] = [];
  const into = () => (stack.length > 0 ? stack[stack.length - 1].children : out);
  for (const token of tokens) {
    // A tight list's paragraphs are hidden: their text goes in the item itself.
    if (token.hidden && token.nesting !== 0) continue;
    if (token.nesting === 1) {
      let tag = BLOCKS[token.type] ?? (HEADINGS.has(token.tag) && token.type === 'heading_open' ? shifted(token.tag, links.headingShift ?? 0) : null);
      let attrs: Record<string, string> | null = null;
      if (token.type === 'ordered_list_open') {
        const start = Number(token.attrGet('start') ?? '1');
        if (Number.isSafeInteger(start) && start !== 1) attrs = { start: String(start) };
      }
      if (token.type === 'link_open') {
        const to = target(token.attrGet('href') ?? '', links);
        if (to) attrs = to.own ? { href: to.href } : { href: to.href, rel: 'nofollow ugc noopener' };
        else tag = 'span'; // not a link we follow: its text alone
      }
      stack.push({ tag: tag ?? 'span', attrs, children: [] });
      continue;
    }
    if (token.nesting === -1) {
      const open = stack.pop();
      if (open) into().push(h(open.tag, open.attrs, ...open.children));
      continue;
    }
    switch (token.type) {
      case 'inline':
        into().push(...render(token.children ?? [], links));
        break;
      case 'text':
      case 'html_inline':
      case 'html_block':
        into().push(shownText(token.content));
        break;
      case 'code_inline':
        into().push(h('code', null, shownText(token.content)));
        break;
      case 'code_block':
      case 'fence':
        into().push(h('pre', null, h('code', null, shownText(token.content))));
        break;
      case 'softbreak':
        into().push('\n');
        break;
      case 'hardbreak':
        into().push(h('br', null));
        break;
      case 'hr':
        into().push(h('hr', null));
        break;
      case 'image':
        // No images: a remote image would track readers. Its description, as text.
        into().push(shownText(token.content));
        break;
      default:
        if (token.content) into().push(shownText(token.content));
    }
  }
  // Whatever was left open (never, for markdown-it's balanced tokens) is closed here.
  while (stack.length > 0) {
    const open = stack.pop()!;
    into().push(h(open.tag, open.attrs, ...open.children));
  }
  return out;
}

/**
 * A changelog entry's body, CommonMark, as the page's markup: headings, lists, emphasis, code,
 * links, quotes. Raw HTML is shown as text; links that leave the workspace's site get
 * `rel="nofollow ugc noopener"`; images show their description.
 */
export function markdownHtml(markdown: string, links: MarkdownLinks): Html {
  return h('div', { class: 'body user-text markdown' }, ...render(parser.parse(markdown, {}), links));
}
