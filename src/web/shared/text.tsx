import { Child, Fragment, Html, h, trustedHtml } from './html';

/** An http(s) address in text: up to white space or a character that cannot end one unquoted. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"']+/gi;
/** Punctuation that closes a sentence rather than the address. */
const TRAILING = /[.,;:!?)\]}]+$/;

/** Controls that can hide or reorder what is shown (bidi overrides and isolates, other C0/C1 controls). */
const HIDDEN_CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;
const hidden = (c: number) => c < 0x20 ? c !== 9 && c !== 10 && c !== 13 : (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);

/** User text as shown: controls that could reorder or hide it are dropped. */
export function shownText(text: string): string {
  for (let i = 0; i < text.length; i++) if (hidden(text.charCodeAt(i))) return text.replace(HIDDEN_CONTROLS, '');
  return text;
}

function withLinks(line: string): Child[] {
  const parts: Child[] = [];
  let last = 0;
  for (const match of line.matchAll(URL_IN_TEXT)) {
    let url = match[0];
    const trailing = TRAILING.exec(url)?.[0] ?? '';
    url = url.slice(0, url.length - trailing.length);
    if (!URL.canParse(url)) continue;
    parts.push(line.slice(last, match.index));
    parts.push(
      <a href={url} rel="nofollow ugc noopener">
        {url}
      </a>,
    );
    last = match.index + url.length;
  }
  parts.push(line.slice(last));
  return parts;
}

/**
 * A post's body or a comment as text: blank lines make paragraphs, line breaks are kept, and
 * http(s) addresses become links that pass no ranking and open no window handle. Nothing in it
 * is read as HTML: every part goes through the escaping of `h`.
 */
export function FormattedText({ text }: { text: string }): Html {
  const paragraphs = shownText(text)
    .replace(/\r\n?/g, '\n')
    .split(/\n[^\S\n]*\n\s*/)
    .map((p) => p.trim())
    .filter(Boolean);
  return (
    <div class="body user-text">
      {paragraphs.map((paragraph) => (
        <p>
          {paragraph.split('\n').map((line, i) => [i > 0 ? <br /> : null, withLinks(line)])}
        </p>
      ))}
    </div>
  );
}

/** White space, as `\s` in a regular expression counts it. */
const space = (c: number) =>
  c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;

/**
 * The start of a text, on one line, cut at a word near `max` code points (the `…` after it is
 * the view's): white space collapsed, hidden controls dropped. Most texts need neither, and are
 * only sliced; the rest is cleaned first, as far as it can be shown.
 */
export function excerpt(text: string, max = 160): { text: string; cut: boolean } {
  let end = 0;
  let points = 0;
  let clean = true;
  for (; end < text.length && points < max; end++, points++) {
    const c = text.charCodeAt(end);
    if (c >= 0xd800 && c <= 0xdbff) end++; // a surrogate pair is one code point
    else if (c === 32 ? end === 0 || text.charCodeAt(end - 1) === 32 : space(c) || hidden(c)) clean = false;
  }
  if (!clean) {
    const flat = shownText(text.slice(0, 4 * max)).replace(/\s+/g, ' ').trim();
    return flat === text ? { text, cut: false } : excerpt(flat, max);
  }
  if (end >= text.length) return { text: text.trimEnd(), cut: false };
  const cut = text.slice(0, end);
  const lastSpace = cut.lastIndexOf(' ');
  return { text: (lastSpace > max * 0.6 ? cut.slice(0, lastSpace) : cut).trimEnd(), cut: true };
}

const ELLIPSIS = trustedHtml('&#8230;');

/** An excerpt as shown, with `…` when it was cut. */
export function Excerpt({ text, max, class: className }: { text: string; max?: number; class?: string }): Html {
  const start = excerpt(text, max);
  return start.text ? (
    <p class={className}>
      {start.text}
      {start.cut ? ELLIPSIS : null}
    </p>
  ) : (
    <></>
  );
}

/** An excerpt as plain text (a meta description, a feed's summary). */
export const excerptText = (text: string, max?: number) => {
  const start = excerpt(text, max);
  return start.cut ? `${start.text}…` : start.text;
};
