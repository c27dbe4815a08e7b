import type { EntityManager } from 'typeorm';

/**
 * The channel on which a committed change to what a workspace's public pages show (posts,
 * votes, comments, boards, names) is announced, with the workspace's id: each instance then
 * knows its remembered page validators for that workspace are stale (src/web/shared/page-cache.ts).
 * Changes that record an event announce it in the event's own statement (EventsService).
 */
export const SITE_CHANNEL = 'chorus_site';

/** Announces, at the commit of `manager`'s transaction, that the workspace's pages changed. */
export async function announceSiteChange(manager: Pick<EntityManager, 'query'>, workspaceId: string): Promise<void> {
  await manager.query(`SELECT pg_notify($1, $2)`, [SITE_CHANNEL, workspaceId]);
}
