import type { AreaCookies } from '../shared/session-cookies';
import type { Session } from '../shared/sessions.service';

/** A workspace as its public site shows it. */
export interface PublicWorkspace {
  id: string;
  slug: string;
  name: string;
}

/** What the site's guard knows of a request before its handler runs. */
export interface SiteContext {
  workspace: PublicWorkspace;
  /** The signed-in visitor, or null. */
  visitor: Session | null;
  /** No session cookie came with the request: its pages may be kept by anyone (and revalidated). */
  anonymous: boolean;
  /** The workspace's pages' version, read before anything the page shows (PageCache). */
  version: string | null;
  /** Shown in the widget's frame (`/embed/<workspace>/…`): the compact layout, links under /embed, the embed's cookies. */
  embed: boolean;
  /** The cookies of this door: the site's, or the embed's. */
  cookies: AreaCookies;
  /** In the frame: the origins allowed to frame it (and to message it). */
  frameOrigins: string[];
}

/** The visitor as the services that act for them see them (an API key's creator, elsewhere). */
export const actorOf = (site: SiteContext) => ({
  workspaceId: site.workspace.id,
  workspaceSlug: site.workspace.slug,
  personId: site.visitor!.personId,
});

export const readerOf = (site: SiteContext) => ({ workspaceId: site.workspace.id, workspaceSlug: site.workspace.slug });

declare module '../../common/request-context' {
  interface ChorusRequest {
    /** On a page of a workspace's public site: the workspace and who is signed in (the site's guard). */
    site?: SiteContext;
    /** Asked for under `/embed/` (the widget's frame): see site/embed.ts. */
    embed?: boolean;
  }
}
