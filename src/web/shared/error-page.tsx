import type { Links } from '../../config/links';
import { documentHtml, h } from './html';
import { Layout } from './layout';

const TITLES: Record<number, string> = {
  400: 'That did not work',
  403: 'This request was refused',
  404: 'Page not found',
  413: 'That was too long',
  429: 'Slow down a little',
  500: 'Something went wrong',
  503: 'Try again in a moment',
};

export interface ErrorPageInput {
  status: number;
  title?: string;
  message: string;
  /** Where the page was asked for: its own path on the site or the dashboard. */
  path: string;
  /** The workspace, when the page belongs to one and it is public. */
  workspace?: { slug: string; name: string } | null;
  /** In the widget's frame (`/embed/…`): its compact layout and script, and the way back stays in the frame. */
  embed?: { origins: string[] } | null;
}

/**
 * The page every refused or failed page request gets. A private board's page, and any page of
 * one, is this same 404, word for word, as a page that never existed.
 */
export function renderErrorPage(input: ErrorPageInput, links: Links): string {
  const admin = input.path === '/admin' || input.path.startsWith('/admin/');
  const title = input.title ?? TITLES[input.status] ?? TITLES[500];
  const message = input.status === 404 ? 'There is nothing at this address. Check the link, or start again from the home page.' : input.message;
  const home = admin
    ? links.adminPath('/admin')
    : input.workspace
      ? links.publicPath(`${input.embed ? '/embed' : ''}/${input.workspace.slug}`)
      : null;
  return documentHtml(
    <Layout
      meta={{
        title,
        description: title,
        canonical: admin ? links.adminPath(input.path) : links.publicUrl(input.path),
        siteName: input.workspace?.name ?? 'Chorus',
        noindex: true,
      }}
      chrome={{ home: home ?? '#main', nav: [], assets: admin ? links.adminPath('') : links.publicPath(''), embed: input.embed ?? undefined }}
    >
      <div class="narrow">
        <h1>{title}</h1>
        <p class="user-text">{message}</p>
        {home ? (
          <p>
            <a href={home}>{admin ? 'Back to the dashboard' : `Back to ${input.workspace!.name}`}</a>
          </p>
        ) : null}
      </div>
    </Layout>,
  );
}
