import type { BoardEntity } from '../../../boards/board.entity';
import type { PostResponse } from '../../../posts/post.mapper';
import { escapeHtml } from '../../shared/html';
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
