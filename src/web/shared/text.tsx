import { Child, Html, h } from './html';

/** An http(s) address in text: up to white space or a character that cannot end one unquoted. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"']+/gi;
/** Punctuation that closes a sentence rather than the address. */
const TRAILING = /[.,;:!?)\]}]+$/;

/** Controls that can hide or reorder what is shown (bidi overrides and isolates, other C0/C1 controls). */
const HIDDEN_CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/** User text as shown: controls that could reorder or hide it are dropped. */
export const shownText = (text: string) => text.replace(HIDDEN_CONTROLS, '');

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

/** The start of a text, on one line, cut at a word near `max` code points. */
export function excerpt(text: string, max = 160): string {
  // Only the start is shown: look at no more of a long text than can be shown (a code point is at most two units).
  const flat = shownText(text.length > 4 * max ? text.slice(0, 4 * max) : text)
    .replace(/\s+/g, ' ')
    .trim();
  if (flat.length <= max) return flat;
  let units = 0;
  let points = 0;
  for (const point of flat) {
    if (points === max) break;
    units += point.length;
    points++;
  }
  if (units === flat.length) return flat;
  const cut = flat.slice(0, units);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
