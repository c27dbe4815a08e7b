import type { BoardEntity } from '../../../boards/board.entity';
import type { PostResponse } from '../../../posts/post.mapper';
import { TYPE_WORDS } from '../../../changelog/changelog-entry';
import type { ChangelogEntryResponse } from '../../../changelog/changelog.mapper';
import { escapeHtml } from '../../shared/html';
import { markdownHtml } from '../../shared/markdown';
import { excerptText } from '../../shared/text';

/** Characters XML 1.0 does not allow at all (C0 controls but tab and line breaks, U+FFFE, U+FFFF). */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Text as XML character data or an attribute value. */
const xml = (text: string) => escapeHtml(text.replace(NOT_XML, ''));

/** A board's newest posts as an Atom 1.0 feed. */
export function atomFeed(input: { workspaceName: string; board: BoardEntity; boardUrl: string; selfUrl: string; posts: PostResponse[] }): string {
  const updated = input.posts.reduce((latest, p) => (p.updated_at > latest ? p.updated_at : latest), input.board.createdAt.toISOString());
  const entries = input.posts.map(
    (post) => `
  <entry>
    <title>${xml(post.title)}</title>
    <id>${xml(post.url)}</id>
    <link rel="alternate" type="text/html" href="${xml(post.url)}"/>
    <published>${post.created_at}</published>
    <updated>${post.updated_at}</updated>
    <author><name>${xml(post.author.name)}</name></author>
    <category term="${post.category}"/>
    <summary type="text">${xml(excerptText(post.body, 400))}</summary>
  </entry>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>${xml(`${input.board.name} · ${input.workspaceName}`)}</title>
  ${input.board.description ? `<subtitle>${xml(input.board.description)}</subtitle>` : ''}
  <id>${xml(input.boardUrl)}</id>
  <link rel="self" type="application/atom+xml" href="${xml(input.selfUrl)}"/>
  <link rel="alternate" type="text/html" href="${xml(input.boardUrl)}"/>
  <updated>${updated}</updated>
  <generator>Chorus</generator>${entries.join('')}
</feed>
`;
}

/** A workspace's 50 newest published changelog entries as an Atom 1.0 feed; bodies as the pages render them. */
export function changelogFeed(input: { workspaceName: string; url: string; selfUrl: string; own: string; entries: ChangelogEntryResponse[] }): string {
  const updated = input.entries.reduce((latest, e) => (e.updated_at > latest ? e.updated_at : latest), input.entries[0]?.published_at ?? new Date(0).toISOString());
  const entries = input.entries.map(
    (entry) => `
  <entry>
    <title>${xml(entry.title)}</title>
    <id>${xml(entry.url)}</id>
    <link rel="alternate" type="text/html" href="${xml(entry.url)}"/>
    <published>${entry.published_at}</published>
    <updated>${entry.updated_at}</updated>
    <category term="${entry.type}" label="${TYPE_WORDS[entry.type]}"/>
    <content type="html">${xml(markdownHtml(entry.body, { own: input.own, headingShift: 1 }).text)}</content>
  </entry>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>${xml(`Changelog · ${input.workspaceName}`)}</title>
  <id>${xml(input.url)}</id>
  <link rel="self" type="application/atom+xml" href="${xml(input.selfUrl)}"/>
  <link rel="alternate" type="text/html" href="${xml(input.url)}"/>
  <updated>${updated}</updated>
  <author><name>${xml(input.workspaceName)}</name></author>
  <generator>Chorus</generator>${entries.join('')}
</feed>
`;
}

/** The public boards and their posts' pages, for search engines (sitemaps.org). */
export function sitemap(urls: { loc: string; lastmod?: Date }[]): string {
  const entries = urls.map(
    (u) => `  <url><loc>${xml(u.loc)}</loc>${u.lastmod ? `<lastmod>${u.lastmod.toISOString()}</lastmod>` : ''}</url>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${entries.join('\n')}
</urlset>
`;
}

/** Crawlers may read the public site, not the dashboard or the API. */
export function robotsTxt(disallow: string[]): string {
  return `User-agent: *\n${disallow.map((path) => `Disallow: ${path}`).join('\n')}\n`;
}
