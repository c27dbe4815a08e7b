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
    <div class="body user-text" dir="auto">
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
  const flat = shownText(text).replace(/\s+/g, ' ').trim();
  const points = Array.from(flat);
  if (points.length <= max) return flat;
  const cut = points.slice(0, max).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
